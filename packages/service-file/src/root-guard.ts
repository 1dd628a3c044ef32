import { realpathSync, statSync } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import { isAbsolute, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Code, TrestleError } from "@trestle/core";

/** Resolves resource locations to files under the served roots, and nowhere else. */
export interface RootGuard {
  /** The roots, as real paths. */
  readonly roots: readonly string[];
  /** Directories never served even when under a root, as given (resolved). */
  readonly excluded: readonly string[];
  /**
   * The real path of the file a location names: a `file://` URI, an absolute path, or a path relative to the
   * roots (tried in order; the first root where it exists wins).
   *
   * @throws TrestleError InvalidArgument (empty or malformed location), PermissionDenied (outside the roots,
   *   through `..`, an absolute path elsewhere, a symbolic link that leads out, or anything inside an excluded
   *   directory, whether it exists or not), NotFound (no such file).
   */
  resolve(location: string): Promise<string>;
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function outside(location: string): TrestleError {
  return new TrestleError(`${location} is outside the served roots`, Code.PermissionDenied);
}

function notFound(location: string, cause?: unknown): TrestleError {
  return new TrestleError(`${location} does not exist`, Code.NotFound, { cause });
}

function pathOf(location: string): string {
  if (location === "") throw new TrestleError("The resource location is empty", Code.InvalidArgument);
  if (location.includes("\0")) {
    throw new TrestleError("The resource location contains a NUL character", Code.InvalidArgument);
  }
  if (!location.startsWith("file:")) return location;
  try {
    return fileURLToPath(location);
  } catch (error) {
    throw new TrestleError(`${location} is not a valid local file URI`, Code.InvalidArgument, {
      cause: error,
    });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Options for {@link createRootGuard}. */
export interface RootGuardOptions {
  /**
   * Directories never served, even under a root: the router's data directory, the services' homes with their
   * provisioned secrets. Checked on the location as written and on its real path (a link into one is refused
   * too); a directory that does not exist yet is excluded by its path. A location inside one is refused as if
   * it were outside the roots, so that nobody can tell the two apart.
   */
  excluded?: readonly string[];
}

/** The real path of `path`, or `path` itself while it does not exist (a data directory created later). */
function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Creates the guard for the given root directories. Each root is turned into its real path once; a location
 * is checked twice: lexically (after resolving `.` and `..`) and again on its real path (after following
 * every symbolic link), so that neither `../` nor a link inside a root can lead out of the roots.
 *
 * @throws TrestleError InvalidArgument when no root is given or a root is not an existing directory.
 */
export function createRootGuard(roots: readonly string[], options: RootGuardOptions = {}): RootGuard {
  const excluded = (options.excluded ?? []).map((path) => resolve(path));
  // Real paths are looked up at each request: an excluded directory may appear (or move behind a link) later.
  const isExcluded = (path: string) =>
    excluded.some((dir) => within(dir, path) || within(realOrResolved(dir), path));
  if (roots.length === 0)
    throw new TrestleError("At least one root directory is needed", Code.InvalidArgument);
  const realRoots: string[] = [];
  // As given too, so that an absolute location spelled through a root's own symbolic link is recognised.
  const givenRoots: string[] = [];
  for (const root of roots) {
    try {
      const real = realpathSync(resolve(root));
      if (!statSync(real).isDirectory()) throw new Error("not a directory");
      realRoots.push(real);
      givenRoots.push(resolve(root));
    } catch (error) {
      throw new TrestleError(`Root ${root} is not an existing directory`, Code.InvalidArgument, {
        cause: error,
      });
    }
  }

  async function candidate(location: string): Promise<string> {
    const path = pathOf(location);
    if (isAbsolute(path)) {
      const absolute = resolve(path);
      if (![...realRoots, ...givenRoots].some((root) => within(root, absolute))) throw outside(location);
      return absolute;
    }
    const inRoots = realRoots
      .map((root) => resolve(root, path))
      .filter((p, i) => within(realRoots[i] as string, p));
    if (inRoots.length === 0) throw outside(location);
    for (const p of inRoots) if (await exists(p)) return p;
    throw notFound(location);
  }

  return {
    roots: realRoots,
    excluded,
    async resolve(location) {
      const path = await candidate(location).catch((error: unknown) => {
        // A missing file inside an excluded directory answers like an existing one: no probing its contents.
        if (error instanceof TrestleError && error.code === Code.NotFound) {
          const relative = pathOf(location);
          if (realRoots.some((root) => isExcluded(resolve(root, relative)))) throw outside(location);
        }
        throw error;
      });
      if (isExcluded(path)) throw outside(location);
      let real: string;
      try {
        real = await realpath(path);
      } catch (error) {
        if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") throw notFound(location, error);
        throw new TrestleError(
          `${location} cannot be resolved (${errnoCode(error) ?? "error"})`,
          Code.Internal,
          {
            cause: error,
          },
        );
      }
      if (!realRoots.some((root) => within(root, real)) || isExcluded(real)) {
        throw new TrestleError(`${location} leads outside the served roots`, Code.PermissionDenied);
      }
      return real;
    },
  };
}
