import { createParser } from "eventsource-parser";

/** The stateless revision and the `_meta` a 2026-07-28 request carries. */
export const MODERN_REVISION = "2026-07-28";

let nextId = 1;

/** What a stateless request may declare about its client. */
export interface ModernRequestOptions {
  capabilities?: Record<string, unknown>;
  logLevel?: string;
  headers?: Record<string, string>;
}

/** A JSON-RPC answer and the HTTP status it came with; notifications seen on the way when it was a stream. */
export interface WireAnswer {
  status: number;
  body: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
  notifications: { method: string; params?: Record<string, unknown> }[];
}

function mcpName(method: string, params: Record<string, unknown>): string | undefined {
  if (method === "tools/call" || method === "prompts/get") return params.name as string;
  if (method === "resources/read") return params.uri as string;
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel")
    return params.taskId as string;
  return undefined;
}

/** Reads a response that is JSON or an SSE stream, until the answer to `id` arrives. */
async function readAnswer(response: Response, id: unknown): Promise<WireAnswer> {
  const notifications: WireAnswer["notifications"] = [];
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return { status: response.status, body: (await response.json()) as WireAnswer["body"], notifications };
  }
  let body: WireAnswer["body"] | undefined;
  const parser = createParser({
    onEvent(event) {
      const message = JSON.parse(event.data) as Record<string, unknown>;
      if ("method" in message) notifications.push(message as WireAnswer["notifications"][number]);
      else if (message.id === id) body = message as WireAnswer["body"];
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (body) break;
  }
  if (!body) throw new Error(`the stream ended without an answer to request ${String(id)}`);
  return { status: response.status, body, notifications };
}

/** Sends one stateless (2026-07-28) request with its `_meta` and mirrored headers. */
export async function modernRequest(
  mcpUrl: string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): Promise<WireAnswer> {
  const id = nextId++;
  const name = mcpName(method, params);
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_REVISION,
      "mcp-method": method,
      ...(name !== undefined ? { "mcp-name": name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
          "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? {},
          "io.modelcontextprotocol/clientInfo": { name: "trestle-e2e", version: "1.0.0" },
          ...(options.logLevel ? { "io.modelcontextprotocol/logLevel": options.logLevel } : {}),
        },
      },
    }),
  });
  return readAnswer(response, id);
}

/** A legacy session of one revision, spoken on the wire by hand (the SDK's client always offers its newest). */
export interface LegacySession {
  readonly id: string;
  readonly protocolVersion: string;
  request(method: string, params?: Record<string, unknown>): Promise<WireAnswer>;
  /**
   * Sends a request and answers the server's own requests on its stream with `answer`, until the answer to
   * the request arrives.
   */
  requestAnswering(
    method: string,
    params: Record<string, unknown>,
    answer: (request: { method: string; params?: Record<string, unknown> }) => unknown,
  ): Promise<WireAnswer & { serverRequests: { method: string; params?: Record<string, unknown> }[] }>;
  close(): Promise<void>;
}

/** Opens a legacy session on `mcpUrl`, offering `revision` and declaring `capabilities`. */
export async function openLegacySession(
  mcpUrl: string,
  revision: string,
  capabilities: Record<string, unknown> = {},
): Promise<LegacySession> {
  const post = (body: unknown, session?: string, protocolVersion?: string) =>
    fetch(mcpUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session ? { "mcp-session-id": session } : {}),
        ...(protocolVersion && protocolVersion >= "2025-06-18"
          ? { "mcp-protocol-version": protocolVersion }
          : {}),
      },
      body: JSON.stringify(body),
    });
  const initId = nextId++;
  const init = await post({
    jsonrpc: "2.0",
    id: initId,
    method: "initialize",
    params: {
      protocolVersion: revision,
      capabilities,
      clientInfo: { name: "trestle-e2e", version: "1.0.0" },
    },
  });
  const id = init.headers.get("mcp-session-id");
  if (!id) throw new Error(`initialize gave no session (HTTP ${init.status}: ${await init.text()})`);
  const answer = await readAnswer(init, initId);
  const protocolVersion = answer.body.result?.protocolVersion as string;
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, id, protocolVersion);
  return {
    id,
    protocolVersion,
    async request(method, params = {}) {
      const requestId = nextId++;
      return readAnswer(
        await post({ jsonrpc: "2.0", id: requestId, method, params }, id, protocolVersion),
        requestId,
      );
    },
    async requestAnswering(method, params, reply) {
      const requestId = nextId++;
      const response = await post({ jsonrpc: "2.0", id: requestId, method, params }, id, protocolVersion);
      const serverRequests: { method: string; params?: Record<string, unknown> }[] = [];
      const notifications: WireAnswer["notifications"] = [];
      if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
        return { ...(await readAnswer(response, requestId)), serverRequests };
      }
      let body: WireAnswer["body"] | undefined;
      const answers: Promise<unknown>[] = [];
      const parser = createParser({
        onEvent(event) {
          const message = JSON.parse(event.data) as Record<string, unknown>;
          if ("method" in message && "id" in message) {
            const request = message as { id: unknown; method: string; params?: Record<string, unknown> };
            serverRequests.push({
              method: request.method,
              ...(request.params ? { params: request.params } : {}),
            });
            answers.push(
              Promise.resolve(reply(request)).then((result) =>
                post({ jsonrpc: "2.0", id: request.id, result }, id, protocolVersion),
              ),
            );
          } else if ("method" in message) notifications.push(message as WireAnswer["notifications"][number]);
          else if (message.id === requestId) body = message as WireAnswer["body"];
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (body) break;
      }
      await Promise.all(answers);
      if (!body) throw new Error(`the stream ended without an answer to request ${requestId}`);
      return { status: response.status, body, notifications, serverRequests };
    },
    async close() {
      await fetch(mcpUrl, { method: "DELETE", headers: { "mcp-session-id": id } });
    },
  };
}

/** An open `subscriptions/listen` stream: the notifications it delivered so far, and a way to wait for more. */
export interface ListenStream {
  readonly notifications: { method: string; params?: Record<string, unknown>; at: number }[];
  waitFor(
    method: string,
    timeoutMs: number,
  ): Promise<{ method: string; params?: Record<string, unknown>; at: number }>;
  close(): void;
}

/** Opens a `subscriptions/listen` stream on `mcpUrl` with `filter`, resolved once it is acknowledged. */
export async function openListen(mcpUrl: string, filter: Record<string, unknown>): Promise<ListenStream> {
  const abort = new AbortController();
  const response = await fetch(mcpUrl, {
    method: "POST",
    signal: abort.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_REVISION,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: `listen-${nextId++}`,
      method: "subscriptions/listen",
      params: {
        notifications: filter,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    throw new Error(`subscriptions/listen answered HTTP ${response.status}: ${await response.text()}`);
  }
  const notifications: ListenStream["notifications"] = [];
  const waiters = new Set<() => void>();
  const parser = createParser({
    onEvent(event) {
      const message = JSON.parse(event.data) as { method: string; params?: Record<string, unknown> };
      notifications.push({ ...message, at: Date.now() });
      for (const wake of waiters) wake();
    },
  });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // Closed by the test.
    }
  })();
  const stream: ListenStream = {
    notifications,
    waitFor(method, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = notifications.find((n) => n.method === method);
          if (!found) return false;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(
              `no ${method} within ${timeoutMs} ms (got ${notifications.map((n) => n.method).join(", ")})`,
            ),
          );
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
    close: () => abort.abort(),
  };
  await stream.waitFor("notifications/subscriptions/acknowledged", 10_000);
  return stream;
}
