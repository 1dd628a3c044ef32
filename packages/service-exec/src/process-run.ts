import { type StdioOptions, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { constants } from "node:os";
import type { Duplex, Readable } from "node:stream";
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
  /**
   * Hold the program until `place` has run: the started process reports the pid of the process that will run
   * the program (JSON with `"child-pid"`, as bubblewrap's `--info-fd` writes it) on descriptor `infoFd`, and
   * waits for a byte on descriptor `blockFd` before it starts the program. `place` gets the started process's
   * pid at once, and that reported pid when it arrives; the byte is sent when both are placed. When `place`
   * fails, the run is stopped before the program starts (outcome `failed`).
   */
  held?: HeldStart;
  /**
   * A descriptor of the child that is one end of a socket pair, the tool channel (see {@link ProcessRun.channel}).
   * None when absent.
   */
  channelFd?: number;
}

/** See {@link ProcessRunOptions.held}. */
export interface HeldStart {
  infoFd: number;
  blockFd: number;
  place(pids: readonly number[]): Promise<void>;
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
  /** The engine's end of the tool channel, when {@link ProcessRunOptions.channelFd} was given. */
  channel?: Duplex;
}

/** How long the streams of an exited program may stay open (a descendant that left the group holds them). */
const STREAM_CLOSE_WAIT_MS = 2_000;
/** The child's descriptors: stdin closed, stdout and stderr piped, and the held start's two when given. */
function stdioFor(held: HeldStart | undefined, channelFd: number | undefined): StdioOptions {
  const stdio: ("ignore" | "pipe")[] = ["ignore", "pipe", "pipe"];
  const piped = new Set<number>();
  if (held) piped.add(held.infoFd).add(held.blockFd);
  // Node makes each piped descriptor past stderr a Unix socket pair: the channel's two ends.
  if (channelFd !== undefined) piped.add(channelFd);
  const last = Math.max(2, ...piped);
  for (let fd = 3; fd <= last; fd++) stdio.push(piped.has(fd) ? "pipe" : "ignore");
  return stdio;
}

function readToEnd(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    stream.once("end", () => resolve(text));
    stream.once("close", () => resolve(text));
    stream.once("error", () => resolve(text));
  });
}

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
    stdio: stdioFor(options.held, options.channelFd),
  });
  const pgid = child.pid;
  let stopReason: "timeout" | "cancelled" | "output-limit" | "unplaced" | undefined;
  let placementError: unknown;
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

  function stop(reason: "timeout" | "cancelled" | "output-limit" | "unplaced") {
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
  // Always piped (see stdioFor).
  const stdout = child.stdout as Readable;
  const stderr = child.stderr as Readable;
  stdout.on("data", (chunk: Buffer) => onData("stdout", chunk));
  stderr.on("data", (chunk: Buffer) => onData("stderr", chunk));

  const heldStreams = options.held
    ? {
        info: child.stdio[options.held.infoFd] as NodeJS.ReadableStream & { destroy(): void },
        block: child.stdio[options.held.blockFd] as NodeJS.WritableStream & { destroy(): void },
      }
    : undefined;
  async function release(held: HeldStart, streams: NonNullable<typeof heldStreams>, leader: number) {
    // A sandbox that died early closes these; the exit then says why.
    streams.block.on("error", () => {});
    // At once, while bwrap sets its sandbox up: the kernel's first move into a cgroup waits for an RCU grace
    // period (about 6 ms here), which then overlaps bwrap's own start instead of following it.
    const leaderPlaced = held.place([leader]);
    leaderPlaced.catch(() => undefined);
    const info = await readToEnd(streams.info);
    const sandboxPid = Number(/"child-pid":\s*(\d+)/.exec(info)?.[1] ?? 0);
    if (sandboxPid <= 0) return;
    try {
      await Promise.all([leaderPlaced, held.place([sandboxPid])]);
    } catch (error) {
      placementError = error;
      stop("unplaced");
      return;
    }
    streams.block.end("1");
  }
  if (options.held && heldStreams && pgid !== undefined) void release(options.held, heldStreams, pgid);

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
    heldStreams?.info.destroy();
    heldStreams?.block.destroy();
    await Promise.all([closed(stdout), closed(stderr)]);
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
    } else if (stopReason === "unplaced") {
      outcome = "failed";
      const reason = placementError instanceof Error ? placementError.message : String(placementError);
      message = `The run could not be placed under its memory limit (${reason}); it was stopped before the program started`;
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

  const channel = options.channelFd === undefined ? undefined : (child.stdio[options.channelFd] as Duplex);
  return {
    pid: pgid,
    events: queue,
    cancel: () => stop("cancelled"),
    done,
    ...(channel ? { channel } : {}),
  };
}
