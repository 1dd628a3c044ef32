import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, type HandlerContext, type JsonValue, type ServiceHandlers, TrestleError } from "@trestle/core";
import {
  CALL_PATHS,
  httpStatusFor,
  NDJSON,
  REQUEST_ID_KEY,
  type ReplyLine,
  type RequestEnvelope,
  toWireError,
} from "./wire.js";

/** Options for {@link createHttpJsonCapabilityServer}: the handlers it serves, and where it listens. */
export interface HttpJsonCapabilityServerOptions extends ServiceHandlers {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on. Default `0`: any free port. */
  port?: number;
  /** Largest request body accepted. Default 16 MiB. */
  maxBodyBytes?: number;
}

/** A capability service speaking HTTP+JSON. */
export interface HttpJsonCapabilityServer {
  /** Starts listening; resolves with the address actually bound. */
  listen(): Promise<{ host: string; port: number }>;
  /** Stops listening, cancels the calls in flight (their handlers' signals abort) and closes every connection. */
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes)
      throw new TrestleError(`The request is larger than ${maxBytes} bytes`, Code.ResourceExhausted);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseEnvelope(text: string): RequestEnvelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TrestleError("The request body is not JSON", Code.InvalidArgument);
  }
  const envelope = value as Partial<RequestEnvelope> | null;
  if (typeof envelope !== "object" || envelope === null || typeof envelope.request !== "object")
    throw new TrestleError("The request body must be {request, metadata}", Code.InvalidArgument);
  return { request: envelope.request ?? {}, metadata: envelope.metadata ?? {} };
}

function contextFor(envelope: RequestEnvelope, signal: AbortSignal): HandlerContext {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(envelope.metadata)) metadata[key.toLowerCase()] = String(value);
  return { signal, requestId: metadata[REQUEST_ID_KEY] ?? "", metadata };
}

function line(message: ReplyLine): string {
  return `${JSON.stringify(message)}\n`;
}

/** Answers a unary call, or refuses a stream before it starts. */
function answer(res: ServerResponse, status: number, message: ReplyLine): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(message));
}

/**
 * Serves {@link ServiceHandlers} over HTTP+JSON (see `wire.ts`): the server side of
 * `createHttpJsonTransport`. A handler's signal aborts when the caller disconnects — which is how a
 * cancelled call, a passed deadline or a consumer that stopped reading reaches the service — or when the server
 * closes. A missing handler answers `unimplemented`; a thrown `TrestleError` answers its code; anything else thrown
 * answers `internal` with its message.
 *
 * @example
 * ```ts
 * const server = createHttpJsonCapabilityServer({
 *   callTool: (call) => ({ content: [{ type: "text", text: `Hello, ${call.arguments.name}!` }] }),
 * });
 * const { host, port } = await server.listen();
 * ```
 */
export function createHttpJsonCapabilityServer(
  options: HttpJsonCapabilityServerOptions,
): HttpJsonCapabilityServer {
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const inFlight = new Set<AbortController>();

  async function serveUnary(
    method: string,
    call: ((context: HandlerContext) => unknown) | undefined,
    envelope: RequestEnvelope,
    res: ServerResponse,
    signal: AbortSignal,
  ) {
    if (!call) throw new TrestleError(`${method} is not served here`, Code.Unimplemented);
    const result = await call(contextFor(envelope, signal));
    answer(res, 200, { reply: result as JsonValue });
  }

  async function serveStream(envelope: RequestEnvelope, res: ServerResponse, signal: AbortSignal) {
    const handler = options.executeCode;
    if (!handler) throw new TrestleError("executeCode is not served here", Code.Unimplemented);
    res.writeHead(200, { "content-type": NDJSON });
    res.flushHeaders();
    try {
      // Breaking out of (or throwing in) this loop ends the handler's generator: its `finally` runs.
      for await (const output of handler.call(
        options,
        envelope.request as never,
        contextFor(envelope, signal),
      )) {
        // Aborted (the caller left, or this server is closing): stop, and never send the end marker.
        signal.throwIfAborted();
        // Each output leaves as soon as it is produced; wait when the client reads slower than the engine writes.
        if (!res.write(line({ reply: output as JsonValue }))) await once(res, "drain", { signal });
      }
      if (!res.destroyed) res.end(line({ end: true }));
    } catch (error) {
      if (!res.destroyed) res.end(line({ error: toWireError(error) }));
    }
  }

  function dispatch(path: string, envelope: RequestEnvelope, res: ServerResponse, signal: AbortSignal) {
    // The request is the call as the client sent it (a ToolCall, a ResourceRead, …): JSON needs no decoding.
    const input = envelope.request as never;
    const { callTool, readResource, getPrompt, provision, probeHealth } = options;
    switch (path) {
      case CALL_PATHS.callTool:
        return serveUnary(
          "callTool",
          callTool && ((c) => callTool.call(options, input, c)),
          envelope,
          res,
          signal,
        );
      case CALL_PATHS.readResource:
        return serveUnary(
          "readResource",
          readResource && ((c) => readResource.call(options, input, c)),
          envelope,
          res,
          signal,
        );
      case CALL_PATHS.getPrompt:
        return serveUnary(
          "getPrompt",
          getPrompt && ((c) => getPrompt.call(options, input, c)),
          envelope,
          res,
          signal,
        );
      case CALL_PATHS.provision:
        return serveUnary(
          "provision",
          provision && ((c) => provision.call(options, input, c)),
          envelope,
          res,
          signal,
        );
      case CALL_PATHS.probeHealth:
        return serveUnary(
          "probeHealth",
          probeHealth && ((c) => probeHealth.call(options, c)),
          envelope,
          res,
          signal,
        );
      case CALL_PATHS.executeCode:
        return serveStream(envelope, res, signal);
      default:
        throw new TrestleError(`No call at ${path}`, Code.NotFound);
    }
  }

  const server = createServer(async (req, res) => {
    const controller = new AbortController();
    inFlight.add(controller);
    // The connection closing before the answer is complete is the caller's cancellation.
    res.on("close", () => {
      inFlight.delete(controller);
      if (!res.writableFinished) controller.abort(new TrestleError("The caller went away", Code.Canceled));
    });
    try {
      if (req.method !== "POST")
        throw new TrestleError(`Calls are POST requests, not ${req.method}`, Code.NotFound);
      const envelope = parseEnvelope(await readBody(req, maxBodyBytes));
      await dispatch(req.url ?? "", envelope, res, controller.signal);
    } catch (error) {
      const code = error instanceof TrestleError ? error.code : Code.Internal;
      answer(res, httpStatusFor(code), { error: toWireError(error) });
    }
  });

  let closing: Promise<void> | undefined;
  return {
    async listen() {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
      });
      const address = server.address() as AddressInfo;
      return { host: address.address, port: address.port };
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const controller of inFlight)
          controller.abort(new TrestleError("The capability server is closing", Code.Unavailable));
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
