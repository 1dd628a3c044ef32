/**
 * The reply side of the Streamable HTTP endpoint: its headers' names, refusals in either protocol era, and
 * {@link HttpExchange}, which answers one POST as JSON or, once a call streams, as SSE.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { writeJson } from "../http/body.js";
import { openSseStream, type SseStream, type SseStreamOptions } from "../http/sse.js";
import { JsonRpcErrorCode, jsonRpcError } from "./json-rpc.js";
import type { Exchange } from "./mcp-dispatcher.js";
import { type EraRefusal, ModernErrorCode } from "./protocol-era.js";
import { EncodedResult } from "./reusable-result.js";

/** The header that carries a legacy session's id. */
export const SESSION_HEADER = "mcp-session-id";
/** The header that names the protocol revision a request speaks. */
export const VERSION_HEADER = "mcp-protocol-version";

/** Sends `body` as a JSON answer with `status`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  writeJson(res, status, JSON.stringify(body), headers);
}

/** Refuses a request: `status`, and a JSON-RPC error with `code` and `message` (no id). */
export function refuse(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
) {
  sendJson(res, status, jsonRpcError(code, message), headers);
}

/** Sends a stateless request's refusal: its status, and its error under the request's own id. */
export function refuseModern(res: ServerResponse, refusal: EraRefusal, id: RequestId | null): void {
  sendJson(res, refusal.status, {
    jsonrpc: "2.0",
    id,
    error: {
      code: refusal.code,
      message: refusal.message,
      ...(refusal.data !== undefined ? { data: refusal.data } : {}),
    },
  });
}

/**
 * The HTTP status a stateless request's error answer carries (2026-07-28): 404 for a method the router does not
 * serve, 400 for a refused header, capability or version; 200 otherwise (the error is in the body).
 */
function modernErrorStatus(message: JSONRPCMessage): number {
  const code = (message as { error?: { code?: number } }).error?.code;
  if (code === JsonRpcErrorCode.MethodNotFound) return 404;
  if (
    code === ModernErrorCode.HeaderMismatch ||
    code === ModernErrorCode.MissingRequiredClientCapability ||
    code === ModernErrorCode.UnsupportedProtocolVersion
  ) {
    return 400;
  }
  return 200;
}

/** Whether the request's Accept header lists `type` (or anything). */
export function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept ?? "";
  return accept.includes(type) || accept.includes("*/*");
}

/**
 * The reply side of one POST: JSON when every request is answered without a notification on the way; switches to
 * an SSE stream as soon as a notification tied to one of the requests (progress, log) arrives, so that output can
 * stream while a call runs.
 */
export class HttpExchange implements Exchange {
  private readonly responses: JSONRPCMessage[] = [];
  private sse: SseStream | undefined;
  finished = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly batch: boolean,
    private readonly headers: Record<string, string>,
    private readonly sseOptions: SseStreamOptions = {},
    /** A stateless (2026-07-28) request: its error answers carry the status the revision gives them. */
    private readonly modern = false,
  ) {}

  respond(message: JSONRPCMessage): void {
    if (this.sse) this.sse.send(JSON.stringify(message), { event: "message" });
    else this.responses.push(message);
  }

  notify(message: JSONRPCMessage): void {
    if (!this.sse) {
      if (this.res.headersSent || this.finished) return;
      this.sse = openSseStream(this.res, { ...this.sseOptions, headers: this.headers });
      for (const r of this.responses.splice(0)) this.sse.send(JSON.stringify(r), { event: "message" });
    }
    this.sse.send(JSON.stringify(message), { event: "message" });
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.sse) {
      this.sse.close();
      return;
    }
    if (this.res.writableEnded || this.res.destroyed) return;
    if (this.responses.length === 0) {
      this.res.writeHead(202, this.headers).end();
      return;
    }
    const status = this.modern ? modernErrorStatus(this.responses[0] as JSONRPCMessage) : 200;
    const single = this.batch ? undefined : this.responses[0];
    const result = (single as { result?: unknown } | undefined)?.result;
    if (result instanceof EncodedResult) {
      writeJson(this.res, status, result.answerParts((single as { id: RequestId }).id), this.headers);
      return;
    }
    sendJson(this.res, status, this.batch ? this.responses : this.responses[0], this.headers);
  }
}
