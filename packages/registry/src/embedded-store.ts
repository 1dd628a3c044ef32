import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { createPgliteClient } from "./pglite-client.js";
import { makeTreePrivate, preparePrivateDirectory } from "./private-directory.js";
import type { SqlClient } from "./sql-client.js";

/**
 * PostgreSQL settings of the embedded store. The catalog and the registry are small and read from memory (the
 * hot path never queries the store), so PostgreSQL's default 128 MB of shared buffers only makes the process
 * bigger: PostgreSQL initialises all of them at start, and every initialised page of PGlite's WASM memory is
 * resident. 1 MB (128 pages) measured 16 MiB less than 16 MB on an idle router.
 */
export const EMBEDDED_SETTINGS = "shared_buffers=1MB";

/**
 * What the short-lived initdb process runs (CommonJS, so it needs no file of its own and works the same from
 * the sources under test and from the built package). argv: PGlite's CommonJS entry, the data directory, the
 * settings.
 */
const INITDB_SCRIPT = `
const { PGlite } = require(process.argv[1]);
PGlite.create({ dataDir: process.argv[2], postgresqlconf: process.argv[3] })
  .then((db) => db.close())
  .catch((error) => { process.stderr.write(String(error && error.message || error)); process.exit(1); });
`;

/**
 * Creates a PGlite database in `dataDir` in a separate, short-lived process. PGlite runs initdb in a second
 * WASM instance inside the process that creates the database, and that process keeps 450–550 MiB of it
 * resident afterwards (measured: 733 MiB after creating, against 168 MiB after reopening the same directory);
 * a process that only ever reopens a directory stays small.
 */
function createDatabaseIn(dataDir: string): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ["-e", INITDB_SCRIPT, pglite, dataDir, EMBEDDED_SETTINGS],
      { timeout: 120_000, maxBuffer: 1 << 20 },
      (error, _stdout, stderr) => {
        if (error)
          fail(new Error(`creating the embedded database failed: ${stderr.trim() || error.message}`));
        else done();
      },
    );
  });
}

/**
 * Opens the embedded PGlite database in `dataDir`, creating it first (in another process) when the directory
 * holds none. The directory is the router's alone: created with mode 0700 (missing parents too), refused when
 * it exists open to other users (as PostgreSQL refuses such a data directory), and every file in it is made
 * 0600 before and after PGlite starts, since PGlite sets modes of its own (0666, 0644) whatever the umask. Files
 * PostgreSQL creates while running (WAL segments, relations) are 0600 already.
 *
 * @throws TrestleError `FailedPrecondition` when the directory is open to other users or owned by another.
 */
export async function openEmbeddedDatabase(dataDir: string): Promise<SqlClient> {
  const directory = resolve(dataDir);
  await preparePrivateDirectory(directory, "data directory");
  if (!existsSync(join(directory, "PG_VERSION"))) await createDatabaseIn(directory);
  await makeTreePrivate(directory);
  const db = await PGlite.create({ dataDir: directory, postgresqlconf: EMBEDDED_SETTINGS });
  try {
    await makeTreePrivate(directory);
  } catch (error) {
    await db.close();
    throw error;
  }
  return createPgliteClient(db);
}

/** Prefix of the throw-away stores' directories under the system's temporary directory. */
const THROWAWAY_PREFIX = "trestle-store-";
/** The file in a throw-away store's directory that names the process using it. */
const OWNER_FILE = "trestle-owner.pid";

/** True while a process with this pid exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the throw-away stores of processes that are gone without closing them (killed). Best effort: a
 * directory without an owner file, or one this process cannot read, is left alone.
 */
async function removeAbandonedThrowaways(): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(tmpdir())).filter((name) => name.startsWith(THROWAWAY_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const directory = join(tmpdir(), name);
    try {
      const owner = Number((await readFile(join(directory, OWNER_FILE), "utf8")).trim());
      if (Number.isInteger(owner) && owner > 0 && !alive(owner))
        await rm(directory, { recursive: true, force: true });
    } catch {
      // No owner file (being created, or not ours): leave it.
    }
  }
}

/**
 * An embedded database that is gone when closed: a fresh one in a temporary directory, removed on close.
 * Kept on disk rather than in PGlite's in-memory file system, which would hold the whole 39 MB data directory
 * (most of it a zero-filled WAL segment) in the process's memory. A process killed before closing it leaves the
 * directory behind; the next throw-away store opened on the machine removes it.
 */
export async function openThrowawayDatabase(): Promise<SqlClient> {
  await removeAbandonedThrowaways();
  const directory = await mkdtemp(join(tmpdir(), THROWAWAY_PREFIX));
  await writeFile(join(directory, OWNER_FILE), `${process.pid}\n`);
  let client: SqlClient;
  try {
    // The database in a directory of its own: initdb wants an empty one, the owner file stays beside it.
    client = await openEmbeddedDatabase(join(directory, "data"));
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    ...client,
    async close() {
      try {
        await client.close();
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    },
  };
}
