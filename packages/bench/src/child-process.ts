import { type ChildProcess, spawn } from "node:child_process";

/** Options for {@link spawnNode}. */
export interface SpawnNodeOptions {
  /** Flags for node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: readonly string[];
  /** Open an IPC channel (the child can `process.send`). */
  ipc?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Every child started here, so that an interrupted run still ends them all. */
const started = new Set<ChildProcess>();

/**
 * Starts `node script args` in a process group of its own (so that stopping it also stops whatever it spawned,
 * e.g. a gateway's stdio server), with stdout and stderr piped.
 */
export function spawnNode(
  script: string,
  args: readonly string[],
  options: SpawnNodeOptions = {},
): ChildProcess {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
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
