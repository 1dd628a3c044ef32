import cluster, { type Worker } from "node:cluster";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { RouterConfig } from "../config.js";
import { CliError } from "./cli-error.js";

/** What `trestle serve --workers N` may be combined with, checked before anything starts. */
export interface WorkerRequest {
  config: RouterConfig;
  builtins: boolean;
  stdio: boolean;
}

/**
 * Refuses a worker count the router cannot serve correctly. Every worker is a replica: it opens the store
 * itself and follows the change feed, so workers need a store several processes can open at once. The embedded
 * PGlite store is one process's alone (its data directory is locked, and its notifications reach only that
 * process).
 * @throws CliError (exit code 2) naming what to change.
 */
export function checkWorkers({ config, builtins, stdio }: WorkerRequest): void {
  if (config.workers <= 1) return;
  if (!config.databaseUrl) {
    throw new CliError(
      `--workers ${config.workers} needs a PostgreSQL store (--database-url or TRESTLE_DATABASE_URL): every worker opens the store and follows its change feed, and the embedded store can be opened by one process only`,
      2,
    );
  }
  if (stdio) throw new CliError("--workers cannot be combined with --stdio (one client, one process)", 2);
  if (builtins) {
    throw new CliError(
      "--workers cannot be combined with --builtins: run the built-in services beside a single router, or start them yourself against the workers' port",
      2,
    );
  }
}

/** True in a process that `trestle serve --workers N` forked to serve. */
export function isWorker(): boolean {
  return cluster.isWorker;
}

/** The 1-based number of this worker, or undefined outside a worker. */
export function workerId(): number | undefined {
  return cluster.isWorker ? cluster.worker?.id : undefined;
}

/** Options for {@link runWorkers}. */
export interface RunWorkersOptions {
  count: number;
  /** Variables each worker gets besides the primary's environment: the secrets the primary took out of its own. */
  env?: Record<string, string>;
  /** When no session secret is configured: the workers get one made for this start, so they share sessions. */
  sessionSecret?: string;
  /** Where the primary writes its lines (the banner, workers that ended). */
  write(line: string): void;
  /** Called once every worker listens, with the port they share. */
  onListening(port: number): void;
}

/**
 * The primary of `trestle serve --workers N`: forks N workers that run the same command (each a full router on
 * the shared PostgreSQL store) and share one listening socket through `node:cluster`, which hands each new
 * connection to the next worker in turn. The workers share the session key, so any of them continues any
 * session; the catalog reaches all of them through the store's change feed, as it reaches replicas on several
 * hosts. A worker that ends unexpectedly is replaced; SIGTERM or SIGINT stops them all (each drains its calls
 * first) and then the primary. Resolves when the primary should exit, with its exit code.
 */
export function runWorkers(options: RunWorkersOptions): Promise<number> {
  // Round robin in the primary: the operating system's own balancing favours the busiest worker.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  // The session secret is given as a value: a file that named it would be a second source of the same setting.
  const { TRESTLE_SESSION_SECRET_FILE: _named, ...passed } = options.env ?? {};
  const env = {
    ...passed,
    TRESTLE_SESSION_SECRET: options.sessionSecret ?? randomBytes(32).toString("hex"),
  };
  const listening = new Set<number>();
  let stopping = false;
  let announced = false;

  return new Promise<number>((resolve) => {
    const fork = (): Worker => {
      const worker = cluster.fork(env);
      worker.once("listening", (address: AddressInfo) => {
        listening.add(worker.id);
        if (!announced && listening.size === options.count) {
          announced = true;
          options.onListening(address.port);
        }
      });
      worker.once("exit", (code, signal) => {
        const everListened = listening.delete(worker.id);
        if (stopping) {
          if (Object.keys(cluster.workers ?? {}).length === 0) resolve(0);
          return;
        }
        options.write(`trestle: worker ${worker.id} ended (${signal ?? `exit code ${code}`})`);
        // A worker that never listened would fail again the same way (a bad flag, the database unreachable).
        if (!everListened) {
          resolve(1);
          stop();
          return;
        }
        // A second later: a worker that keeps failing must not become a busy loop of forks.
        setTimeout(() => {
          if (!stopping) fork();
        }, 1_000);
      });
      return worker;
    };
    const stop = () => {
      if (stopping) return;
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      if (workers.length === 0) resolve(0);
      for (const worker of workers) worker.process.kill("SIGTERM");
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    for (let i = 0; i < options.count; i++) fork();
  });
}
