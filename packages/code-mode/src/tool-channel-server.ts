import type { Duplex } from "node:stream";
import { TrestleError } from "@trestle/core";
import {
  ChannelProtocolError,
  createLineSplitter,
  decodeToolCallRequest,
  encodeChannelMessage,
  type ToolCallRequest,
} from "./channel-protocol.js";
import { programOutcome, type ToolResultLike } from "./program-result.js";

/** One call a program made, as the router's handler receives it. */
export interface ToolChannelCall {
  /** The tool's original name. */
  name: string;
  arguments: Record<string, unknown>;
  /** Aborted when the channel closes (the program ended or was stopped): the call's answer has no reader. */
  signal: AbortSignal;
}

/**
 * Runs one call through the router (resolve, policy, limits, events: the ordinary call path) and returns the
 * tool's result. An error thrown here reaches the program as `ToolError` with the error's message, so it must not
 * carry secrets; a refused or failed call is better returned as a result with `isError`.
 */
export type ToolChannelHandler = (call: ToolChannelCall) => Promise<ToolResultLike>;

/** Options of {@link serveToolChannel}: the bounds on what one program may ask. */
export interface ToolChannelOptions {
  /** Longest request line, in bytes. Default 1 MiB. */
  maxRequestBytes?: number;
  /** Calls run at once; further requests wait, and the channel is not read while they do. Default 8. */
  maxConcurrentCalls?: number;
  /** Calls one program may make; past it, each call is answered with an error. Default 1,000. */
  maxCalls?: number;
}

/** How a channel ended. */
export interface ToolChannelSummary {
  /** Calls handed to the handler. */
  calls: number;
  /** Requests answered with an error without reaching the handler (malformed, or past `maxCalls`). */
  refused: number;
  /** Why the router closed the channel, when the program broke the protocol. */
  protocolError?: string;
}

/** The router's end of one program's tool channel. */
export interface ToolChannel {
  /** Settles once the stream is closed and every call in flight has settled. */
  readonly closed: Promise<ToolChannelSummary>;
  /** Closes the channel: calls in flight are aborted, the program's pending calls fail. */
  close(): void;
}

function messageOf(error: unknown): string {
  if (error instanceof TrestleError) return error.rawMessage;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Serves a program's tool calls on a duplex stream (the router's end of the socket the program's prelude
 * talks to): reads requests line by line, runs each through `handler` (at most `maxConcurrentCalls` at once),
 * and answers each with the result rule of `programOutcome`. A line that is too long or not a request with an
 * `id` closes the channel (the summary says why); a request with an `id` but bad `name` or `arguments` is
 * answered with an error.
 *
 * @example
 * ```ts
 * const child = spawn("node", ["--import", "./trestle-tools.mjs", "main.mjs"], { stdio: ["ignore", "pipe", "pipe", "pipe"] });
 * const channel = serveToolChannel(child.stdio[3] as Duplex, (call) => router.callTool(principal, call));
 * ```
 */
export function serveToolChannel(
  stream: Duplex,
  handler: ToolChannelHandler,
  options: ToolChannelOptions = {},
): ToolChannel {
  const maxConcurrentCalls = options.maxConcurrentCalls ?? 8;
  const maxCalls = options.maxCalls ?? 1000;
  const aborter = new AbortController();
  const waiting: ToolCallRequest[] = [];
  const summary: ToolChannelSummary = { calls: 0, refused: 0 };
  let inFlight = 0;
  let streamClosed = false;
  let writeBlocked = false;
  let settle: (summary: ToolChannelSummary) => void = () => {};
  const closed = new Promise<ToolChannelSummary>((resolve) => {
    settle = resolve;
  });

  const finishIfDone = (): void => {
    if (streamClosed && inFlight === 0) settle(summary);
  };
  const flowControl = (): void => {
    if (streamClosed) return;
    if (writeBlocked || inFlight >= maxConcurrentCalls || waiting.length > 0) stream.pause();
    else stream.resume();
  };
  const send = (message: Parameters<typeof encodeChannelMessage>[0]): void => {
    if (streamClosed || stream.destroyed) return;
    if (!stream.write(encodeChannelMessage(message))) {
      writeBlocked = true;
      flowControl();
    }
  };
  const breakProtocol = (error: ChannelProtocolError): void => {
    summary.protocolError ??= error.rawMessage;
    stream.destroy();
  };
  const run = (request: ToolCallRequest): void => {
    inFlight++;
    summary.calls++;
    handler({ name: request.name, arguments: request.arguments, signal: aborter.signal })
      .then(
        (result) => send({ id: request.id, ...programOutcome(request.name, result) }),
        (error: unknown) => send({ id: request.id, error: { message: messageOf(error) } }),
      )
      .finally(() => {
        inFlight--;
        const next = waiting.shift();
        if (next && !streamClosed) run(next);
        flowControl();
        finishIfDone();
      });
  };
  const onLine = (line: string): void => {
    let request: ToolCallRequest;
    try {
      request = decodeToolCallRequest(line);
    } catch (error) {
      if (!(error instanceof ChannelProtocolError) || error.id === undefined) throw error;
      summary.refused++;
      send({ id: error.id, error: { message: error.rawMessage } });
      return;
    }
    if (summary.calls + waiting.length >= maxCalls) {
      summary.refused++;
      send({ id: request.id, error: { message: `this program made more than ${maxCalls} tool calls` } });
      return;
    }
    if (inFlight < maxConcurrentCalls) run(request);
    else waiting.push(request);
  };
  const splitter = createLineSplitter(options.maxRequestBytes ?? 1024 * 1024, onLine);

  stream.on("data", (chunk: Buffer | string) => {
    if (streamClosed) return;
    try {
      splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    } catch (error) {
      if (error instanceof ChannelProtocolError) breakProtocol(error);
      else throw error;
    }
    flowControl();
  });
  stream.on("drain", () => {
    writeBlocked = false;
    flowControl();
  });
  const onClose = (): void => {
    if (streamClosed) return;
    streamClosed = true;
    waiting.length = 0;
    aborter.abort();
    finishIfDone();
  };
  stream.on("close", onClose);
  stream.on("end", () => stream.end());
  stream.on("error", () => stream.destroy());

  return {
    closed,
    close: () => stream.destroy(),
  };
}
