import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "@trestle/core";
import { createParser } from "eventsource-parser";
import { mcpHeaderValue } from "./mcp-param-headers.js";
import { MODERN_PROTOCOL_VERSION, SUBSCRIPTION_ID_META_KEY } from "./modern-era.js";

/** A notification a modern upstream sent while it served a request. */
export interface ModernNotification {
  method: string;
  params?: JsonObject;
}

/** How one request is sent on a {@link ModernChannel}. */
export interface ModernRequestOptions {
  /** Ends the request: the HTTP response stream is closed; on stdio `notifications/cancelled` is sent. */
  signal: AbortSignal;
  /** Each notification tied to this request (progress, log messages, a subscription's notifications). */
  onNotification?(notification: ModernNotification): void;
  /** Extra HTTP headers of this request (`Mcp-Param-*`); ignored on stdio. */
  headers?: Record<string, string>;
}

/**
 * One way to reach a 2026-07-28 upstream: each request stands alone (no session), its answer is the JSON-RPC
 * result. A JSON-RPC error rejects with the SDK's `McpError` (with `httpStatus` when it came over HTTP), an HTTP
 * failure without a JSON-RPC body with `StreamableHTTPError`.
 */
export interface ModernChannel {
  readonly pid: number | undefined;
  readonly closed: boolean;
  request(method: string, params: JsonObject, options: ModernRequestOptions): Promise<JsonObject>;
  close(): Promise<void>;
}

/** An `McpError` that says which HTTP status carried it (the era probe tells a modern 400 from a legacy one). */
export type HttpMcpError = McpError & { httpStatus?: number };

function rpcError(
  error: { code?: unknown; message?: unknown; data?: unknown },
  httpStatus?: number,
): HttpMcpError {
  const failure: HttpMcpError = new McpError(
    typeof error.code === "number" ? error.code : ErrorCode.InternalError,
    typeof error.message === "string" ? error.message : "(no message)",
    error.data,
  );
  if (httpStatus !== undefined) failure.httpStatus = httpStatus;
  return failure;
}

/** The `data` of each event of a Server-Sent Events body (`eventsource-parser`), as they arrive. */
async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let ready: string[] = [];
  const parser = createParser({
    onEvent: ({ data }) => {
      // A resumable server primes its stream with an event that carries no message.
      if (data !== "") ready.push(data);
    },
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    const events = ready;
    ready = [];
    yield* events;
  }
}

/** The JSON-RPC message of a response body or event, or `undefined` when it is not JSON. */
function parseMessage(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** One HTTP exchange: the response's status, content type and body stream. */
interface HttpExchange {
  status: number;
  contentType: string;
  body: IncomingMessage;
}

/**
 * POSTs `body` with node's own HTTP client (about a third of `fetch`'s CPU per call here, which matters on the
 * hot path) on a keep-alive agent. A network failure rejects as `fetch` would (a `TypeError` whose `cause`
 * carries the system code), which is what the failure mapping reads.
 */
function post(
  url: URL,
  agent: HttpAgent,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<HttpExchange> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) }, signal },
      (response) => {
        const type = response.headers["content-type"];
        resolve({
          status: response.statusCode ?? 0,
          contentType: typeof type === "string" ? type : "",
          body: response,
        });
      },
    );
    request.on("error", (error: Error) => {
      reject(signal.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    request.end(body);
  });
}

async function readAll(body: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A channel to a 2026-07-28 server over Streamable HTTP: each request is one POST with the routing headers
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) mirroring the body; the answer is a JSON body or an SSE
 * stream carrying the request's notifications and then its response. No state is kept between requests but the
 * agent's idle TCP connections.
 */
export function createHttpModernChannel(url: URL, headers: Record<string, string>): ModernChannel {
  let nextId = 0;
  let closed = false;
  const open = new Set<AbortController>();
  const agent =
    url.protocol === "https:" ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  return {
    pid: undefined,
    get closed() {
      return closed;
    },
    async request(method, params, options) {
      const id = ++nextId;
      const routing: Record<string, string> = {
        "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
        "mcp-method": method,
      };
      const name = method === "resources/read" ? params.uri : params.name;
      if (typeof name === "string" && ["tools/call", "prompts/get", "resources/read"].includes(method)) {
        routing["mcp-name"] = mcpHeaderValue(name);
      }
      const abort = new AbortController();
      const onAbort = () => abort.abort(options.signal.reason);
      options.signal.addEventListener("abort", onAbort, { once: true });
      if (options.signal.aborted) onAbort();
      open.add(abort);
      try {
        const response = await post(
          url,
          agent,
          {
            ...headers,
            ...(options.headers ?? {}),
            ...routing,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          JSON.stringify({ jsonrpc: "2.0", id, method, params }),
          abort.signal,
        );
        if (response.contentType.includes("text/event-stream")) {
          try {
            for await (const data of sseData(response.body)) {
              const message = parseMessage(data);
              if (!message) continue;
              if (message.id === id && ("result" in message || "error" in message)) {
                if (message.error) throw rpcError(message.error as JsonObject, response.status);
                return (message.result ?? {}) as JsonObject;
              }
              if (typeof message.method === "string" && message.id === undefined) {
                options.onNotification?.({
                  method: message.method,
                  ...(message.params ? { params: message.params as JsonObject } : {}),
                });
              }
            }
          } finally {
            // The answer is in: the rest of the stream (if any) is not this request's.
            response.body.destroy();
          }
          if (abort.signal.aborted) throw abort.signal.reason;
          throw new McpError(
            ErrorCode.ConnectionClosed,
            `The server ended the ${method} stream before answering`,
          );
        }
        const text = await readAll(response.body);
        const message = parseMessage(text);
        if (message?.error && typeof message.error === "object") {
          throw rpcError(message.error as JsonObject, response.status);
        }
        if (response.status < 200 || response.status >= 300) {
          throw new StreamableHTTPError(response.status, text.slice(0, 200));
        }
        if (!message || !("result" in message)) {
          throw new StreamableHTTPError(response.status, "the response is not a JSON-RPC response");
        }
        return (message.result ?? {}) as JsonObject;
      } finally {
        options.signal.removeEventListener("abort", onAbort);
        open.delete(abort);
      }
    },
    async close() {
      closed = true;
      for (const abort of open) abort.abort();
      agent.destroy();
    },
  };
}

interface Pending {
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
  onNotification?: (notification: ModernNotification) => void;
  progressToken?: unknown;
}

/**
 * A channel to a 2026-07-28 server on a stdio process the SDK's transport started: requests and answers
 * correlated by id on the one pipe; progress routed by its token, a subscription's notifications by its id,
 * log messages to the one request in flight (else to `onStrayNotification`). The process is the caller's to
 * end (`transport.close()`); the channel only stops using it.
 */
export function createStdioModernChannel(
  transport: StdioClientTransport,
  hooks: {
    pid(): number | undefined;
    onStrayNotification?(notification: ModernNotification): void;
    onClosed?(): void;
  },
): ModernChannel {
  let nextId = 0;
  let closed = false;
  const pending = new Map<number, Pending>();
  transport.onmessage = (raw: JSONRPCMessage) => {
    const message = raw as unknown as Record<string, unknown>;
    if (typeof message.id === "number" && ("result" in message || "error" in message)) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(rpcError(message.error as JsonObject));
      else waiting.resolve((message.result ?? {}) as JsonObject);
      return;
    }
    if (typeof message.method !== "string" || message.id !== undefined) return;
    const notification: ModernNotification = {
      method: message.method,
      ...(message.params ? { params: message.params as JsonObject } : {}),
    };
    const params = (message.params ?? {}) as JsonObject;
    const meta = (params._meta ?? {}) as JsonObject;
    let target: Pending | undefined;
    if (meta[SUBSCRIPTION_ID_META_KEY] !== undefined) {
      target = pending.get(meta[SUBSCRIPTION_ID_META_KEY] as number);
    } else if (message.method === "notifications/progress") {
      target = [...pending.values()].find((p) => p.progressToken === params.progressToken);
    } else if (pending.size === 1) {
      target = [...pending.values()][0];
    }
    if (target?.onNotification) target.onNotification(notification);
    else hooks.onStrayNotification?.(notification);
  };
  const previousOnClose = transport.onclose;
  transport.onclose = () => {
    previousOnClose?.();
    closed = true;
    for (const waiting of pending.values()) {
      waiting.reject(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
    }
    pending.clear();
    hooks.onClosed?.();
  };
  return {
    get pid() {
      return hooks.pid();
    },
    get closed() {
      return closed;
    },
    request(method, params, options) {
      if (closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
      const id = ++nextId;
      return new Promise<JsonObject>((resolve, reject) => {
        const onAbort = () => {
          if (!pending.delete(id)) return;
          void transport
            .send({
              jsonrpc: "2.0",
              method: "notifications/cancelled",
              params: {
                requestId: id,
                reason: String((options.signal.reason as Error)?.message ?? "cancelled"),
              },
            })
            .catch(() => undefined);
          reject(options.signal.reason);
        };
        const settle =
          <T>(done: (value: T) => void) =>
          (value: T) => {
            options.signal.removeEventListener("abort", onAbort);
            done(value);
          };
        pending.set(id, {
          resolve: settle(resolve),
          reject: settle(reject),
          ...(options.onNotification ? { onNotification: options.onNotification } : {}),
          progressToken: (params._meta as JsonObject | undefined)?.progressToken,
        });
        options.signal.addEventListener("abort", onAbort, { once: true });
        if (options.signal.aborted) {
          onAbort();
          return;
        }
        transport.send({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage).catch((error: unknown) => {
          if (pending.delete(id)) settle(reject)(error);
        });
      });
    },
    async close() {
      closed = true;
    },
  };
}
