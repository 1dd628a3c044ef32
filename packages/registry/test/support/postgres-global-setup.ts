import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server the tests use; each test file creates its own database on it. */
    postgresUrl: string;
  }
}

const run = promisify(execFile);
const DEBIAN_POSTGRES = "/usr/lib/postgresql";

async function findBinaries(): Promise<string> {
  const versions = existsSync(DEBIAN_POSTGRES) ? await readdir(DEBIAN_POSTGRES) : [];
  const dirs = versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(DEBIAN_POSTGRES, v, "bin"))
    .filter((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  const found = dirs[0];
  if (!found) {
    throw new Error(
      "PostgreSQL server binaries were not found (looked for /usr/lib/postgresql/*/bin/initdb and pg_ctl). " +
        "Install them (Debian: apt-get install postgresql) or point TRESTLE_TEST_DATABASE_URL at a server. " +
        "The store tests never skip PostgreSQL.",
    );
  }
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Starts a throw-away PostgreSQL cluster for the test run (or uses TRESTLE_TEST_DATABASE_URL) and provides its
 * admin URL as `postgresUrl`. PostgreSQL refuses to run as root, so as root the cluster belongs to `postgres`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TRESTLE_TEST_DATABASE_URL;
  if (given) {
    project.provide("postgresUrl", given);
    return async () => {};
  }
  const bin = await findBinaries();
  const root = await mkdtemp(join(tmpdir(), "trestle-pg-"));
  const dataDir = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  const as = async (program: string, args: string[]) => {
    const file = join(bin, program);
    return asRoot ? run("runuser", ["-u", "postgres", "--", file, ...args]) : run(file, args);
  };
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(root, Number(stdout.trim()), Number(gid.trim()));
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
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
      "start",
    ]);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`Starting a PostgreSQL test cluster failed: ${(error as Error).message}`);
  }
  project.provide("postgresUrl", `postgres://postgres@127.0.0.1:${port}/postgres`);
  return async () => {
    await as("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  };
}
