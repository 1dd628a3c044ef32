import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);
const DEBIAN_POSTGRES = "/usr/lib/postgresql";

/**
 * How to stop each cluster started and not yet stopped, at once. `pg_ctl` runs the server detached from the
 * harness, so an interrupted run would otherwise leave it running ({@link stopAllPostgresSync}).
 */
const running = new Set<() => void>();

/** Stops every cluster still running, synchronously: for the harness's exit on an interruption or a failure. */
export function stopAllPostgresSync(): void {
  for (const stop of running) stop();
}

/** A throw-away PostgreSQL server. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  url: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The newest PostgreSQL server binaries of Debian's packages, or undefined when none are installed. */
export function findPostgresBinaries(): string | undefined {
  const versions = existsSync(DEBIAN_POSTGRES) ? readdirSync(DEBIAN_POSTGRES) : [];
  return versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(DEBIAN_POSTGRES, v, "bin"))
    .find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
}

/**
 * Starts a PostgreSQL cluster in a temporary directory on a free port, as packages/registry's tests do. The
 * server refuses to run as root, so as root the cluster belongs to the `postgres` user.
 * @throws Error when no PostgreSQL server binaries are installed or the server does not start.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const bin = findPostgresBinaries();
  if (!bin) throw new Error("PostgreSQL server binaries were not found under /usr/lib/postgresql/*/bin");
  const root = await mkdtemp(join(tmpdir(), "trestle-bench-pg-"));
  const dataDir = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  /** The command line that runs one of the server's programs as its owner. */
  const commandAs = (program: string, args: string[]): [string, string[]] => {
    const file = join(bin, program);
    return asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  };
  const as = (program: string, args: string[]) => run(...commandAs(program, args));
  if (asRoot) {
    const { stdout: uid } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(root, Number(uid.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  try {
    await as("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
    await as("pg_ctl", [
      "-D",
      dataDir,
      "-l",
      join(root, "server.log"),
      "-w",
      "-t",
      "60",
      "-o",
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
      "start",
    ]);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`Starting PostgreSQL failed: ${(error as Error).message}`);
  }
  // Synchronous, so the harness's exit path can call it too; the harness waits for it either way.
  const stopNow = () => {
    running.delete(stopNow);
    try {
      execFileSync(...commandAs("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]), {
        stdio: "ignore",
      });
    } catch {
      // Already stopped.
    }
    rmSync(root, { recursive: true, force: true });
  };
  running.add(stopNow);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async createDatabase(name) {
      await run(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      stopNow();
    },
  };
}
