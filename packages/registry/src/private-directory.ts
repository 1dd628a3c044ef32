import type { Dirent, Stats } from "node:fs";
import { chmod, lstat, mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { Code, TrestleError } from "@trestle/core";

/** Mode of the store's directories: the router's user only. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** Mode of the store's files: the router's user only. */
export const PRIVATE_FILE_MODE = 0o600;
/** The permission bits that give the group or anyone else access. */
const OTHERS_BITS = 0o077;

/** File modes mean nothing on Windows, and there is no uid to compare. */
function checksPermissions(): boolean {
  return process.platform !== "win32" && typeof process.getuid === "function";
}

/** `mode`'s permission bits, as `ls` and `chmod` write them (`0755`). */
function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/**
 * Refuses a directory (or file) other users may use or that another user owns, as PostgreSQL refuses a data
 * directory that is group- or world-accessible: what it holds is the router's alone.
 *
 * @throws TrestleError `FailedPrecondition`, one sentence naming the path and the `chmod` (or owner) fix.
 */
export function checkPrivate(path: string, stats: Stats, what: string): void {
  if (!checksPermissions()) return;
  const uid = (process.getuid as () => number)();
  if (stats.uid !== uid) {
    throw new TrestleError(
      `The ${what} ${path} belongs to another user (uid ${stats.uid}); run the router as that user, or give it to this one (uid ${uid}) with \`chown -R ${uid} ${path}\`, and start again`,
      Code.FailedPrecondition,
    );
  }
  if ((stats.mode & OTHERS_BITS) !== 0) {
    const fix = stats.isDirectory() ? `chmod -R go-rwx ${path}` : `chmod 600 ${path}`;
    throw new TrestleError(
      `The ${what} ${path} is open to other users (mode ${octal(stats.mode)}); make it private with \`${fix}\` and start again`,
      Code.FailedPrecondition,
    );
  }
}

/**
 * Makes sure `directory` exists as a directory only this process's user may enter: creates it, and any missing
 * parent, with mode 0700; refuses an existing one that is open to other users or owned by another.
 *
 * @throws TrestleError `FailedPrecondition` (see {@link checkPrivate}; also when the path is not a directory).
 */
export async function preparePrivateDirectory(directory: string, what: string): Promise<void> {
  let stats: Stats | undefined;
  try {
    stats = await stat(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (stats === undefined) {
    // Every directory mkdir creates gets this mode (the default data directory's `.trestle` too).
    await mkdir(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    if (checksPermissions()) await chmod(directory, PRIVATE_DIRECTORY_MODE);
    return;
  }
  if (!stats.isDirectory()) {
    throw new TrestleError(`The ${what} ${directory} is not a directory`, Code.FailedPrecondition);
  }
  checkPrivate(directory, stats, what);
}

/**
 * Gives every directory under `directory` mode 0700 and every file 0600 (symbolic links are left alone, never
 * followed). PGlite writes files with modes of its own, whatever the process's umask: the database it creates
 * has about a thousand files at 0666, and it rewrites the relation cache's files at 0644 when it starts.
 */
export async function makeTreePrivate(directory: string): Promise<void> {
  if (!checksPermissions()) return;
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    // A directory PGlite removed meanwhile (a temporary one) has nothing left to protect.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      await tighten(path, PRIVATE_DIRECTORY_MODE);
      await makeTreePrivate(path);
    } else if (entry.isFile()) {
      await tighten(path, PRIVATE_FILE_MODE);
    }
  }
}

/** Sets `mode` on `path` when its permission bits differ (a file gone meanwhile is skipped). */
async function tighten(path: string, mode: number): Promise<void> {
  try {
    if (((await lstat(path)).mode & 0o777) !== mode) await chmod(path, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
