import { type Agent, request as httpRequest, type IncomingMessage } from "node:http";
import { createSseParser } from "./sse-parser.js";

/** The protocol revision the MCP SDK 1.32 client asks for first. */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";

/** A JSON-RPC message as it arrives from a server. */
export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** Options for {@link createMcpHttpClient}. */
export interface McpHttpClientOptions {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  url: string;
  /** The keep-alive agent the client's requests share. */
  agent: Agent;
  /** Told of every notification that arrives on a POST's SSE reply (progress, log messages). */
  onNotification?: (message: JsonRpcMessage) => void;
  /**
   * Speak MCP 2026-07-28 (stateless) instead: no `initialize`, each request carrying the revision and the client's
   * capabilities in `_meta` and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, as that revision's
   * clients send them.
   */
  stateless?: boolean;
  /** Sent as the `Authorization` header of every request (a router with tokens or OAuth): `Bearer …`. */
  authorization?: string;
}

/** The stateless revision. */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28";

/** A reply to one JSON-RPC request. */
export type McpReply = Pick<JsonRpcMessage, "result" | "error">;

/**
 * A minimal MCP client over Streamable HTTP that sends, byte for byte in shape, what the SDK's
 * `StreamableHTTPClientTransport` sends: `initialize`, then `notifications/initialized` with the
 * `Mcp-Session-Id` and `Mcp-Protocol-Version` headers, a GET stream for server messages, JSON-RPC requests as
 * POSTs accepting JSON or SSE, and a DELETE at the end. No SDK on the client side, so that the load generator
 * costs little CPU of the machine under test.
 */
export interface McpHttpClient {
  /** The session id the server assigned; undefined before `initialize` or for a stateless server. */
  readonly sessionId: string | undefined;
  /** The protocol revision negotiated by `initialize`. */
  readonly protocolVersion: string;
  /** Sends `initialize` and `notifications/initialized`; resolves with the server's initialize result. */
  initialize(): Promise<Record<string, unknown>>;
  /** Sends one request and resolves with its reply (notifications on the way go to `onNotification`). */
  request(method: string, params?: Record<string, unknown>): Promise<McpReply>;
  /** Opens the session's GET stream; `onMessage` gets every message sent on it. */
  openStream(onMessage: (message: JsonRpcMessage) => void): Promise<{ close(): void }>;
  /** Ends the session (DELETE), as the SDK client's `terminateSession` does. */
  terminate(): Promise<void>;
}

/** An HTTP status the client did not expect, with the start of the body. */
export class McpHttpError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 200)}`);
  }
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      text += chunk;
    });
    res.on("end", () => resolve(text));
    res.on("error", reject);
  });
}

/** Creates an {@link McpHttpClient}. */
export function createMcpHttpClient(options: McpHttpClientOptions): McpHttpClient {
  const url = new URL(options.url);
  const base = { host: url.hostname, port: url.port, path: url.pathname + url.search, agent: options.agent };
  let sessionId: string | undefined;
  let protocolVersion = CLIENT_PROTOCOL_VERSION;
  let nextId = 0;
  let headers: Record<string, string> = {};
  const auth: Record<string, string> = options.authorization ? { authorization: options.authorization } : {};

  const setHeaders = () => {
    headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": protocolVersion,
      ...(sessionId ? { "mcp-session-id": sessionId } : {}),
      ...auth,
    };
  };
  setHeaders();

  /** POSTs one message; resolves with the reply carrying `id`, or undefined for a notification (202). */
  function post(
    message: Record<string, unknown>,
    id: number | undefined,
    first = false,
    requestHeaders: Record<string, string> = headers,
  ): Promise<McpReply> {
    const body = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          ...base,
          method: "POST",
          headers: first
            ? { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth }
            : requestHeaders,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          if (first) {
            const assigned = res.headers["mcp-session-id"];
            if (typeof assigned === "string") sessionId = assigned;
          }
          if (status === 202 || id === undefined) {
            res.resume();
            res.on("end", () => resolve({}));
            res.on("error", reject);
            if (status >= 300) reject(new McpHttpError(status, ""));
            return;
          }
          if (status !== 200) {
            void readAll(res).then((text) => reject(new McpHttpError(status, text)), reject);
            return;
          }
          const type = res.headers["content-type"] ?? "";
          if (type.includes("text/event-stream")) {
            const parser = createSseParser();
            let settled = false;
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              for (const event of parser.push(chunk)) {
                // A resumable server primes the stream with an event that carries no message.
                if (event.data.trim() === "") continue;
                let parsed: JsonRpcMessage;
                try {
                  parsed = JSON.parse(event.data) as JsonRpcMessage;
                } catch {
                  continue;
                }
                if (parsed.id === id && ("result" in parsed || "error" in parsed)) {
                  if (!settled) {
                    settled = true;
                    resolve(parsed);
                  }
                } else if (parsed.method) options.onNotification?.(parsed);
              }
            });
            res.on("end", () => {
              if (!settled) reject(new Error(`The SSE reply to request ${id} ended without an answer`));
            });
            res.on("error", reject);
            return;
          }
          void readAll(res).then((text) => {
            try {
              const parsed = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
              const reply = Array.isArray(parsed) ? parsed.find((m) => m.id === id) : parsed;
              if (!reply) reject(new Error(`No answer to request ${id} in the reply`));
              else resolve(reply);
            } catch (error) {
              reject(error);
            }
          }, reject);
        },
      );
      req.on("error", reject);
      req.setHeader("content-length", Buffer.byteLength(body));
      req.end(body);
    });
  }

  return {
    get sessionId() {
      return sessionId;
    },
    get protocolVersion() {
      return protocolVersion;
    },
    async initialize() {
      const id = nextId++;
      const reply = await post(
        {
          jsonrpc: "2.0",
          id,
          method: "initialize",
          params: {
            protocolVersion: CLIENT_PROTOCOL_VERSION,
            capabilities: {},
            clientInfo: { name: "trestle-bench", version: "0.1.0" },
          },
        },
        id,
        true,
      );
      if (reply.error) throw new Error(`initialize failed: ${reply.error.message}`);
      const result = reply.result ?? {};
      if (typeof result.protocolVersion === "string") protocolVersion = result.protocolVersion;
      setHeaders();
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined);
      return result;
    },
    request(method, params) {
      const id = nextId++;
      if (!options.stateless) return post({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, id);
      const name = method === "tools/call" || method === "prompts/get" ? params?.name : undefined;
      return post(
        {
          jsonrpc: "2.0",
          id,
          method,
          params: {
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": STATELESS_PROTOCOL_VERSION,
              "io.modelcontextprotocol/clientCapabilities": {},
              "io.modelcontextprotocol/clientInfo": { name: "trestle-bench", version: "0.1.0" },
            },
          },
        },
        id,
        false,
        {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": STATELESS_PROTOCOL_VERSION,
          "mcp-method": method,
          ...(typeof name === "string" ? { "mcp-name": name } : {}),
          ...auth,
        },
      );
    },
    openStream(onMessage) {
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          // Its own connection: a stream held open must not take a slot of the request pool.
          { ...base, agent: false, method: "GET", headers: { ...headers, accept: "text/event-stream" } },
          (res) => {
            if (res.statusCode !== 200) {
              res.resume();
              reject(new McpHttpError(res.statusCode ?? 0, "GET stream refused"));
              return;
            }
            const parser = createSseParser();
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              for (const event of parser.push(chunk)) {
                try {
                  onMessage(JSON.parse(event.data) as JsonRpcMessage);
                } catch {
                  // A priming event with no JSON (resumability) carries nothing for the client.
                }
              }
            });
            res.on("error", () => undefined);
            resolve({ close: () => req.destroy() });
          },
        );
        req.on("error", reject);
        req.end();
      });
    },
    terminate() {
      if (!sessionId) return Promise.resolve();
      return new Promise((resolve) => {
        const req = httpRequest({ ...base, method: "DELETE", headers }, (res) => {
          res.resume();
          res.on("end", () => resolve());
          res.on("error", () => resolve());
        });
        req.on("error", () => resolve());
        req.end();
      });
    },
  };
}
