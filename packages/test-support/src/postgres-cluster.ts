import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port.js";

const run = promisify(execFile);
const DEBIAN_POSTGRES = "/usr/lib/postgresql";

/** A throw-away PostgreSQL cluster on a loopback port that a test can stop and start again. */
export interface PostgresCluster {
  /** Superuser URL of the `postgres` database (trust authentication: any password is accepted). */
  readonly url: string;
  /** Stops the server (fast shutdown: clients are disconnected). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Runs one statement on the `postgres` database and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Stops the server at once and removes its files. */
  destroy(): Promise<void>;
}

/** Options for {@link startPostgresCluster}. */
export interface PostgresClusterOptions {
  /** The server's `max_connections`. Default 100. */
  maxConnections?: number;
}

/** The newest PostgreSQL server binaries of a Debian-like machine. */
function binaries(): string {
  const versions = existsSync(DEBIAN_POSTGRES) ? readdirSync(DEBIAN_POSTGRES) : [];
  const dir = versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(DEBIAN_POSTGRES, v, "bin"))
    .find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl")));
  if (!dir) {
    throw new Error(
      "PostgreSQL server binaries were not found (looked for /usr/lib/postgresql/*/bin/initdb and pg_ctl). " +
        "Install them (Debian: apt-get install postgresql). The tests that need PostgreSQL never skip it.",
    );
  }
  return dir;
}

/**
 * Creates and starts a cluster in a temporary directory, durability off for speed. PostgreSQL refuses to run as
 * root, so as root the cluster belongs to `postgres`.
 *
 * @throws Error when the binaries are missing or the server does not start (its files are then removed).
 */
export async function startPostgresCluster(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const bin = binaries();
  const root = await mkdtemp(join(tmpdir(), "trestle-pg-"));
  const dataDir = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  const as = (program: string, args: string[]) => {
    const file = join(bin, program);
    return asRoot ? run("runuser", ["-u", "postgres", "--", file, ...args]) : run(file, args);
  };
  const port = await freePort();
  const settings = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=${options.maxConnections ?? 100}`;
  const start = async () => {
    await as("pg_ctl", [
      "-D",
      dataDir,
      "-l",
      join(root, "server.log"),
      "-w",
      "-t",
      "60",
      "-o",
      settings,
      "start",
    ]);
  };
  try {
    if (asRoot) {
      const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
      const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
      await chown(root, uid, gid);
    }
    await as("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
    await start();
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`Starting a PostgreSQL test cluster failed: ${(error as Error).message}`);
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    start,
    async stop() {
      await as("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"]);
    },
    async query<Row>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as Row[];
      } finally {
        await client.end();
      }
    },
    async destroy() {
      await as("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}
