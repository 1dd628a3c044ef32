import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CliError } from "../cli-error.js";
import type { PackageFiles } from "./transport-package.js";

/**
 * Writes `files` under `directory`, creating it. Refuses (exit code 2) a directory that exists with anything in it,
 * or a file in its place, so that nothing of the user's is ever overwritten.
 */
export function writePackage(directory: string, files: PackageFiles): void {
  if (existsSync(directory)) {
    if (!statSync(directory).isDirectory())
      throw new CliError(`${directory} exists and is not a directory: choose another --dir.`, 2);
    if (readdirSync(directory).length > 0)
      throw new CliError(`${directory} exists and is not empty: choose another --dir.`, 2);
  }
  for (const [path, text] of files) {
    const target = join(directory, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text, { flag: "wx" });
  }
}
