import { sseEvents } from "../../support/sse.js";

/** A JSON-RPC answer from the router. */
export interface JsonRpcAnswer {
  id?: unknown;
  result?: {
    content?: { type: string; text?: string }[];
    isError?: boolean;
    tools?: { name: string }[];
    [key: string]: unknown;
  };
  error?: { code: number; message: string };
}

/** One HTTP exchange with the MCP endpoint. */
export interface McpExchange {
  status: number;
  headers: Headers;
  /** The JSON-RPC answer that carries the request's id (from a JSON body or the last SSE `data:` event). */
  answer: JsonRpcAnswer | undefined;
  /** The raw body text. */
  text: string;
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function answerOf(text: string, contentType: string): JsonRpcAnswer | undefined {
  try {
    if (contentType.includes("text/event-stream")) {
      const events = sseEvents(text)
        .filter((e) => e.data !== "")
        .map((e) => JSON.parse(e.data) as JsonRpcAnswer)
        .filter((m) => "result" in m || "error" in m);
      return events.at(-1);
    }
    return text ? (JSON.parse(text) as JsonRpcAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/** Posts one raw body to an MCP endpoint. */
export async function postMcp(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<McpExchange> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body,
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    answer: answerOf(text, response.headers.get("content-type") ?? ""),
  };
}

/**
 * An MCP session spoken over plain HTTP: the test controls every header, can take its session id to another
 * replica, and sees each status code.
 */
export interface McpSession {
  /** The `Mcp-Session-Id` the router assigned. */
  readonly sessionId: string;
  /** Sends a request in the session; `endpoint` overrides where it goes (another replica). */
  request(method: string, params?: unknown, endpoint?: string): Promise<McpExchange>;
  /** `tools/call`, returning the exchange. */
  callTool(name: string, args?: Record<string, unknown>, endpoint?: string): Promise<McpExchange>;
}

/** Initializes a session at `endpoint` (`http://host:port/mcp`) and sends `notifications/initialized`. */
export async function openMcpSession(
  endpoint: string,
  headers: Record<string, string> = {},
): Promise<McpSession> {
  let nextId = 1;
  const init = await postMcp(
    endpoint,
    JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "reliability", version: "1.0.0" },
      },
    }),
    headers,
  );
  const sessionId = init.headers.get("mcp-session-id");
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const sessionHeaders = { ...headers, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" };
  await postMcp(
    endpoint,
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    sessionHeaders,
  );
  const session: McpSession = {
    sessionId,
    request(method, params, to = endpoint) {
      return postMcp(
        to,
        JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, ...(params !== undefined ? { params } : {}) }),
        sessionHeaders,
      );
    },
    callTool(name, args = {}, to = endpoint) {
      return session.request("tools/call", { name, arguments: args }, to);
    },
  };
  return session;
}

/** The text of a tool result (its text contents joined), or the JSON-RPC error's message. */
export function resultText(exchange: McpExchange): string {
  const answer = exchange.answer;
  if (answer?.error) return answer.error.message;
  return (answer?.result?.content ?? []).map((c) => c.text ?? "").join("\n");
}
