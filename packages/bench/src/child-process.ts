import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";

/**
 * Which side of the measurement a process is on. Every server-side process (routers, capabilities, bare
 * servers, gateways and whatever they spawn) shares one CPU set; the load generator gets the other, so that each
 * configuration gets the same CPU budget whatever the number of its processes.
 */
export type CpuRole = "server" | "load";

/** CPU lists for `taskset -c`, one per role. */
export interface CpuPinning {
  server: string;
  load: string;
}

/** Options for {@link spawnNode}. */
export interface SpawnNodeOptions {
  /** Flags for node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: readonly string[];
  /** The node binary (e.g. a Node 22 one, to compare); default: the one running this harness. */
  node?: string;
  /** Open an IPC channel (the child can `process.send`). */
  ipc?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Which CPU set it runs on when the run is pinned (default `server`). */
  role?: CpuRole;
}

/** Every child started here, so that an interrupted run still ends them all. */
const started = new Set<ChildProcess>();
/** The run's CPU sets, once {@link pinCpus} decided them; children inherit their parent's affinity. */
let pinning: CpuPinning | undefined;

/**
 * The pinning `pnpm bench` uses on a machine with at least two CPUs and `taskset`: servers on CPU 0, the load
 * generator and this harness on CPU 1. Undefined (no pinning) otherwise, with the reason.
 */
export function defaultPinning(): CpuPinning | string {
  if (availableParallelism() < 2) return "fewer than 2 CPUs";
  const probe = spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" });
  if (probe.error || probe.status !== 0) return "taskset (util-linux) is not available";
  return { server: "0", load: "1" };
}

/**
 * Pins every process started from now on to its role's CPU set, and this process (which reads results and
 * otherwise idles) to the load generator's.
 * @throws Error when taskset cannot pin this process.
 */
export function pinCpus(cpus: CpuPinning): void {
  const own = spawnSync("taskset", ["-p", "-c", cpus.load, String(process.pid)], { stdio: "ignore" });
  if (own.error || own.status !== 0) throw new Error(`taskset could not pin the harness to CPU ${cpus.load}`);
  pinning = cpus;
}

/**
 * Starts `node script args` in a process group of its own (so that stopping it also stops whatever it spawned,
 * e.g. a gateway's stdio server), with stdout and stderr piped.
 */
export function spawnNode(
  script: string,
  args: readonly string[],
  options: SpawnNodeOptions = {},
): ChildProcess {
  const argv = [...(options.nodeArgs ?? []), script, ...args];
  const node = options.node ?? process.execPath;
  // taskset execs node in place: the pid, the process group and the IPC channel are node's own.
  const [command, commandArgs] = pinning
    ? ["taskset", ["-c", pinning[options.role ?? "server"], node, ...argv]]
    : [node, argv];
  const child = spawn(command, commandArgs, {
    stdio: options.ipc ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
    detached: true,
    env: options.env ?? process.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  started.add(child);
  child.once("exit", () => started.delete(child));
  return child;
}

/** Output a child wrote so far, kept for error messages (the last 4 KB of each stream). */
export function captureOutput(child: ChildProcess): () => string {
  let out = "";
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString("utf8")).slice(-4096);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => out;
}

/**
 * Resolves with the first match of `pattern` in the child's stdout or stderr. Rejects when the child exits
 * first or `timeoutMs` passes, with what it printed.
 */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = pattern.exec(seen);
      if (match) {
        done();
        resolve(match);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(
        new Error(`process exited (${code ?? signal}) before printing ${pattern}: ${seen.slice(-2000)}`),
      );
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${pattern} within ${timeoutMs} ms: ${seen.slice(-2000)}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

/** Resolves with the first IPC message of `type` from the child; rejects on exit or after `timeoutMs`. */
export function waitForMessage<T extends { type: string }>(
  child: ChildProcess,
  type: T["type"],
  timeoutMs: number,
  describe: () => string = () => "",
): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if ((message as { type?: unknown })?.type === type) {
        done();
        resolve(message as T);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new Error(`process exited (${code ?? signal}) before sending '${type}': ${describe()}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no '${type}' message within ${timeoutMs} ms: ${describe()}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

/** Sends SIGTERM to the child's process group and waits for it to exit; SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  signalGroup("SIGTERM");
  const timer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
  // Whatever the leader left behind in its group (a gateway's stdio servers) goes too.
  signalGroup("SIGKILL");
}

/** Kills every child still running (on an interrupted or failed run). */
export function killAllChildren(): void {
  for (const child of started) {
    if (child.pid === undefined) continue;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
