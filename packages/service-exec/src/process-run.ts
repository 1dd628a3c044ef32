import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { createAsyncQueue } from "./async-queue.js";
import type { RunCommand } from "./language-runtimes.js";

/** How a run ended. */
export type RunOutcome = "completed" | "failed" | "timeout" | "cancelled" | "output-limit";

/** Something a run produced: a piece of output, then exactly one exit. */
export type RunEvent =
  | { type: "output"; stream: "stdout" | "stderr"; text: string }
  | { type: "exit"; outcome: RunOutcome; exitCode: number; message: string };

/** Options for {@link startProcessRun}. */
export interface ProcessRunOptions {
  command: RunCommand;
  cwd: string;
  env: Record<string, string>;
  /** Host user and group to start the program as (the engine must be root to set them). */
  uid?: number;
  gid?: number;
  /** After this long the process group is stopped and the outcome is `timeout`. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when the group is stopped. */
  killGraceMs: number;
  /** Total stdout + stderr bytes passed on; past it the output is cut and the group stopped. */
  maxOutputBytes: number;
  /** Aborting it stops the group; the outcome is `cancelled`. */
  signal: AbortSignal;
}

/** A started program. */
export interface ProcessRun {
  /** The process id, which is also its process group id; `undefined` when it could not be started. */
  pid: number | undefined;
  /** Output as it is produced, then the exit. The iteration ends only once the whole group is gone. */
  events: AsyncIterable<RunEvent>;
  /** Stops the group as a cancellation would (SIGTERM, SIGKILL after the grace); nothing once it exited. */
  cancel(): void;
  /** Resolves once the program exited, its group is gone and the exit event was queued. */
  done: Promise<void>;
}

/** How long the streams of an exited program may stay open (a descendant that left the group holds them). */
const STREAM_CLOSE_WAIT_MS = 2_000;
/** How long to wait for the killed group's last members to be reaped. */
const GROUP_GONE_WAIT_MS = 2_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * True when the group still has a member that is not a zombie. Killed descendants whose parent already
 * exited are zombies until init reaps them, which some inits do only every second or two: they no longer
 * run, so they do not count. Reads /proc where there is one; elsewhere any member counts.
 */
async function groupHasLiveMembers(pgid: number): Promise<boolean> {
  if (!groupExists(pgid)) return false;
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return true;
  }
  const states = await Promise.all(
    entries
      .filter((name) => /^[0-9]+$/.test(name))
      .map(async (pid) => {
        const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(fields[2]) === pgid && fields[0] !== "Z";
      }),
  );
  return states.some(Boolean);
}

async function groupGone(pgid: number): Promise<void> {
  const deadline = Date.now() + GROUP_GONE_WAIT_MS;
  while ((await groupHasLiveMembers(pgid)) && Date.now() < deadline) await sleep(10);
}

function closed(stream: NodeJS.ReadableStream & { destroyed: boolean; destroy(): void }): Promise<void> {
  if (stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stream.destroy();
      resolve();
    }, STREAM_CLOSE_WAIT_MS);
    stream.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Starts a program as the leader of a new process group (`detached`), with no stdin, and streams its output.
 * A timeout, an output past the cap, or the signal stops the whole group: SIGTERM, then SIGKILL after
 * `killGraceMs`. When the leader exits, whatever it left behind in its group is killed too, so a run never
 * leaves a process behind (unless a descendant moved itself to another session or group).
 */
export function startProcessRun(options: ProcessRunOptions): ProcessRun {
  const queue = createAsyncQueue<RunEvent>();
  const child = spawn(options.command.file, options.command.args, {
    cwd: options.cwd,
    env: options.env,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pgid = child.pid;
  let stopReason: "timeout" | "cancelled" | "output-limit" | undefined;
  let exited = false;
  let capped = false;
  let outputBytes = 0;
  let killTimer: NodeJS.Timeout | undefined;

  function signalGroup(signal: NodeJS.Signals) {
    if (pgid === undefined) return;
    try {
      process.kill(-pgid, signal);
    } catch {
      // The group is already gone.
    }
  }

  function stop(reason: "timeout" | "cancelled" | "output-limit") {
    if (stopReason || exited) return;
    stopReason = reason;
    signalGroup("SIGTERM");
    killTimer = setTimeout(() => signalGroup("SIGKILL"), options.killGraceMs);
  }

  const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  function onData(stream: "stdout" | "stderr", chunk: Buffer) {
    if (capped) return;
    const room = options.maxOutputBytes - outputBytes;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    outputBytes += part.length;
    const text = decoders[stream].write(part);
    if (text !== "") queue.push({ type: "output", stream, text });
    if (chunk.length > room) {
      capped = true;
      queue.push({
        type: "output",
        stream: "stderr",
        text: `\n[output cut: more than ${options.maxOutputBytes} bytes; the program was stopped]\n`,
      });
      stop("output-limit");
    }
  }
  child.stdout.on("data", (chunk: Buffer) => onData("stdout", chunk));
  child.stderr.on("data", (chunk: Buffer) => onData("stderr", chunk));

  const timeoutTimer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("cancelled");
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener("abort", onAbort, { once: true });

  async function finish(code: number | null, signal: NodeJS.Signals | null, spawnError?: Error) {
    exited = true;
    clearTimeout(timeoutTimer);
    options.signal.removeEventListener("abort", onAbort);
    // The leader is gone: nothing it started may outlive the run.
    signalGroup("SIGKILL");
    clearTimeout(killTimer);
    await Promise.all([closed(child.stdout), closed(child.stderr)]);
    for (const stream of ["stdout", "stderr"] as const) {
      const rest = decoders[stream].end();
      if (rest !== "" && !capped) queue.push({ type: "output", stream, text: rest });
    }
    if (pgid !== undefined) await groupGone(pgid);

    const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
    let outcome: RunOutcome;
    let message: string;
    if (spawnError) {
      outcome = "failed";
      message = `The program could not be started (${(spawnError as NodeJS.ErrnoException).code ?? spawnError.message})`;
    } else if (stopReason === "timeout") {
      outcome = "timeout";
      message = `Timed out after ${options.timeoutMs} ms; the program was killed`;
    } else if (stopReason === "cancelled") {
      outcome = "cancelled";
      message = "Cancelled; the program was killed";
    } else if (stopReason === "output-limit") {
      outcome = "output-limit";
      message = `Output exceeded ${options.maxOutputBytes} bytes; the program was killed`;
    } else if (code === 0) {
      outcome = "completed";
      message = "";
    } else {
      outcome = "failed";
      message = code === null ? `Killed by ${signal}` : `Exited with code ${code}`;
    }
    queue.push({ type: "exit", outcome, exitCode, message });
    queue.end();
  }

  let finished = false;
  const done = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      if (finished) return;
      finished = true;
      void finish(code, signal).then(resolve);
    });
    child.on("error", (error) => {
      // Emitted instead of `exit` when the program could not be spawned at all.
      if (finished || child.pid !== undefined) return;
      finished = true;
      void finish(null, null, error).then(resolve);
    });
  });

  return { pid: pgid, events: queue, cancel: () => stop("cancelled"), done };
}
