import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/**
 * Builds a workspace package's `dist` with its `tsconfig.build.json` unless the build is newer than every
 * source file. The built `main.js` resolves workspace dependencies to their `dist` (Node has no TypeScript
 * here), so the dependencies are built the same way first: what `turbo run test` (`dependsOn: ^build`) does.
 */
export async function buildIfStale(packageDir: string): Promise<void> {
  const dir = resolve(packageDir);
  const built = join(dir, "dist", "index.js");
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource(join(dir, "src"))) return;
  await run(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: dir, timeout: 120_000 });
}

/** Builds this package and the workspace packages its `dist/main.js` loads. */
export async function buildServicePackage(packageDir: string): Promise<string> {
  for (const dependency of ["proto", "core", "capability"]) {
    await buildIfStale(join(packageDir, "..", dependency));
  }
  await buildIfStale(packageDir);
  return join(resolve(packageDir), "dist", "main.js");
}
