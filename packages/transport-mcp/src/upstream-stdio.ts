/**
 * A stdio upstream's process: the SDK's stdio transport that remembers the pid it spawned, its stderr passed on
 * line by line (scrubbed, bounded), and its end with whatever it started.
 */
import type { ChildProcess } from "node:child_process";
import type { Stream } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { scrubSecrets } from "@trestle/core/redaction";
import type { FailureSubject } from "./mcp-failure.js";
import { descendantPids, isProcessAlive, killAll } from "./process-tree.js";
import type { StdioLaunch } from "./stdio-sandbox.js";

import type { ConnectionHooks } from "./upstream-connection.js";
import { safely } from "./upstream-listeners.js";

/** The longest stderr line passed on; longer ones are cut, since a line is a log entry, not a payload. */
const MAX_STDERR_LINE = 4_096;
/** How many of its last stderr lines a failed start quotes, and how long each may be there. */
const STDERR_TAIL_LINES = 5;
const STDERR_TAIL_LINE_LENGTH = 300;

/** The SDK's stdio transport, remembering the pid it spawned (the SDK forgets it as soon as it closes). */
export class PidTrackingStdioTransport extends StdioClientTransport {
  spawnedPid: number | undefined;
  /** The revision the handshake negotiated: the SDK client tells a transport that listens (stdio needs none). */
  protocolVersion: string | undefined;
  /**
   * Its last few stderr lines, scrubbed of its arguments' and environment's values, shortened: what a failed
   * start quotes (npx's "404 Not Found", a Python traceback's last line), since the program says why best.
   */
  readonly stderrTail: string[] = [];
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }
  /** Its process runs already and passes to the next client that connects: that client's start() starts nothing. */
  private handedOver = false;
  override async start(): Promise<void> {
    if (this.handedOver) {
      this.handedOver = false;
      return;
    }
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
  }
  /** Whether stdin holds this turn of the event loop's messages, to be written at once at its end. */
  private corked = false;
  /**
   * Sends as the SDK does, but the messages of one turn of the event loop (the calls that arrived together)
   * reach the process in one write: a write to a pipe is a system call, and under load it was the largest
   * cost of a call on a stdio forward.
   */
  override send(...args: Parameters<StdioClientTransport["send"]>): Promise<void> {
    // The SDK keeps the child private; its stdin is the pipe the SDK writes to.
    const stdin = (this as unknown as { _process?: ChildProcess })._process?.stdin;
    if (stdin && !this.corked && stdin.writable) {
      this.corked = true;
      stdin.cork();
      setImmediate(() => {
        this.corked = false;
        stdin.uncork();
      });
    }
    return super.send(...args);
  }
  /** Detaches the client that started the process, so that another may connect to the same process. */
  handOver(): void {
    this.onmessage = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
    this.handedOver = true;
  }
}

function pipeStderrLines(stream: Stream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let pending = "";
  const decoder = new StringDecoder("utf8");
  stream.on("data", (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline).replace(/\r$/, "");
      pending = pending.slice(newline + 1);
      if (line !== "") onLine(line.slice(0, MAX_STDERR_LINE));
      newline = pending.indexOf("\n");
    }
    if (pending.length > MAX_STDERR_LINE) {
      onLine(pending.slice(0, MAX_STDERR_LINE));
      pending = "";
    }
  });
}

/** The stdio transport that starts `launch`, its stderr (when listened to) passed on scrubbed, line by line. */
export function stdioTransport(
  launch: StdioLaunch,
  subject: FailureSubject,
  hooks: ConnectionHooks,
): PidTrackingStdioTransport {
  const transport = new PidTrackingStdioTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    ...(launch.cwd ? { cwd: launch.cwd } : {}),
    // Never "inherit": a server's stderr may echo its argv. Piped stderr is always read (its last lines kept for
    // a failed start's message), or a chatty server would block once the pipe fills.
    stderr: "pipe",
  });
  const onStderr = hooks.onStderr;
  pipeStderrLines(transport.stderr, (line) => {
    const scrubbed = scrubSecrets(line, subject.secrets);
    transport.stderrTail.push(
      scrubbed.length > STDERR_TAIL_LINE_LENGTH ? `${scrubbed.slice(0, STDERR_TAIL_LINE_LENGTH)}…` : scrubbed,
    );
    if (transport.stderrTail.length > STDERR_TAIL_LINES) transport.stderrTail.shift();
    if (onStderr) safely(() => onStderr(scrubbed));
  });
  return transport;
}

/**
 * Ends a stdio process and whatever it started: closes stdin, waits, then kills what is left; `force` kills at
 * once (a server that stayed silent will not exit politely either).
 */
export async function endProcess(
  transport: PidTrackingStdioTransport,
  alive: boolean,
  force = false,
): Promise<void> {
  const pid = transport.spawnedPid;
  const left = pid !== undefined && alive ? descendantPids(pid) : [];
  if (force && pid !== undefined && alive) killAll([...left, pid]);
  await transport.close().catch(() => undefined);
  const stragglers = left.filter(isProcessAlive);
  killAll(stragglers);
  // SIGKILL is delivered asynchronously: close() promises that the processes are gone when it resolves.
  for (const end = Date.now() + 2_000; Date.now() < end && stragglers.some(isProcessAlive); ) {
    await new Promise((r) => setTimeout(r, 10));
  }
}
