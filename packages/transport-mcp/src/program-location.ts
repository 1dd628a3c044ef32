import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/**
 * Top-level system directories, visible in every sandbox (read-only) and on its `PATH`: a program or interpreter
 * under one of them needs nothing more.
 */
export const SYSTEM_DIRECTORIES: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

/** How many `#!` interpreters deep a program is followed (a shim run by a script run by an interpreter). */
const MAX_INTERPRETER_DEPTH = 3;

/** Where a program lives on the host, and what a sandbox must show for it to run. */
export interface ProgramLocation {
  /** The program's absolute path, as found (not resolved through links: some programs find their files by it). */
  path: string;
  /**
   * Host directories that hold the program, the file it links to and its `#!` interpreters, outside the system
   * directories: each installation's prefix (the parent of a `bin` directory, where its `lib` lives) or the
   * program's own directory.
   */
  directories: string[];
  /** The directories of the program and its interpreters outside the system directories, for the sandbox's `PATH`. */
  pathEntries: string[];
}

/** True when `path` is `directory` or inside it (both absolute and normalised). */
export function isUnder(path: string, directory: string): boolean {
  if (directory === "/") return true;
  return path === directory || path.startsWith(`${directory}/`);
}

function isSystemPath(path: string): boolean {
  return SYSTEM_DIRECTORIES.some((system) => isUnder(path, system));
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds `command` as a spawn would: a command with a slash is a path (relative to `cwd`); a bare name is looked up
 * in each directory of `searchPath`. `undefined` when there is no such executable file.
 */
export function findProgram(command: string, searchPath: string, cwd: string): string | undefined {
  if (command.includes("/")) {
    const path = resolve(cwd, command);
    return isExecutableFile(path) ? path : undefined;
  }
  for (const directory of searchPath.split(":")) {
    if (!isAbsolute(directory)) continue;
    const path = join(directory, command);
    if (isExecutableFile(path)) return path;
  }
  return undefined;
}

/** The interpreter a `#!` line names, found on `searchPath` when it is run through `env`; `undefined` when none. */
function interpreterOf(path: string, searchPath: string): string | undefined {
  let head: string;
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString("latin1");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (!head.startsWith("#!")) return undefined;
  const words = (head.slice(2).split("\n")[0] ?? "").trim().split(/\s+/);
  const interpreter = words[0];
  if (!interpreter || !isAbsolute(interpreter)) return undefined;
  if (basename(interpreter) !== "env") return interpreter;
  // `#!/usr/bin/env [-S] [NAME=value…] program`: the first word that is neither an option nor an assignment.
  const named = words.slice(1).find((word) => !word.startsWith("-") && !word.includes("="));
  return named ? findProgram(named, searchPath, "/") : undefined;
}

/**
 * The directory a sandbox shows for an installed file: the installation's prefix when the file is in a `bin`
 * directory (`~/.nvm/versions/node/v20/bin/node` → `~/.nvm/versions/node/v20`, whose `lib` holds npm), else the
 * file's own directory. Never a home directory or one above it (`~/bin/x` shows `~/bin`, not all of `~`).
 */
function installationOf(file: string, homes: readonly string[]): string {
  const directory = dirname(file);
  if (basename(directory) !== "bin") return directory;
  const prefix = dirname(directory);
  if (prefix === "/" || homes.some((home) => isUnder(home, prefix))) return directory;
  return prefix;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Locates `command` and what it needs to run: its directory and installation, those of the file it links to, and
 * of its `#!` interpreter (followed a few levels). Directories under {@link SYSTEM_DIRECTORIES} are left out:
 * every sandbox shows them.
 *
 * @param homes home directories that must never be shown whole (the router user's).
 * @returns `undefined` when no executable `command` is found.
 */
export function locateProgram(
  command: string,
  options: { searchPath: string; cwd: string; homes?: readonly string[] },
): ProgramLocation | undefined {
  const path = findProgram(command, options.searchPath, options.cwd);
  if (!path) return undefined;
  const homes = options.homes ?? [];
  const directories = new Set<string>();
  const pathEntries = new Set<string>();
  const add = (file: string) => {
    for (const candidate of new Set([file, realOrSelf(file)])) {
      if (isSystemPath(candidate)) continue;
      directories.add(installationOf(candidate, homes));
      pathEntries.add(dirname(candidate));
    }
  };
  let current: string | undefined = path;
  for (let depth = 0; current && depth <= MAX_INTERPRETER_DEPTH; depth++) {
    add(current);
    current = interpreterOf(realOrSelf(current), options.searchPath);
  }
  return { path, directories: [...directories], pathEntries: [...pathEntries] };
}
