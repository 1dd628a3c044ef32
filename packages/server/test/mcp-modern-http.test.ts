import type { ServiceHandlers } from "@trestle/core";
import { createParser } from "eventsource-parser";
import { afterEach, describe, expect, it } from "vitest";
import { MCP_REVISIONS, META } from "../src/mcp/protocol-era.js";
import { FixtureCatalog, type McpFixture, startMcpFixture } from "./mcp-fixture.js";

const MODERN = "2026-07-28";
const SERVER_INFO = { name: "trestle", version: "0.0.0-test" };

const fixtures: McpFixture[] = [];
const streams: AbortController[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.abort();
  await Promise.all(fixtures.splice(0).map((f) => f.close()));
});

const handlers: ServiceHandlers = {
  callTool: async (call) => {
    if (call.tool.uri === "ask://") {
      if (!call.input) {
        return {
          content: [],
          inputRequired: {
            requests: {
              confirm: {
                kind: "elicitation",
                params: {
                  message: "Book the flight?",
                  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
                },
              },
            },
            state: "backend-step-1",
          },
        };
      }
      return { content: [{ type: "text", text: `answered ${JSON.stringify(call.input)}` }] };
    }
    return { content: [{ type: "text", text: `echo ${JSON.stringify(call.arguments)}` }] };
  },
  async *executeCode() {
    yield { type: "output", stream: "stdout", text: "first\n" };
    yield { type: "output", stream: "stdout", text: "second\n" };
    yield { type: "exit", status: "completed", exitCode: 0 };
  },
};

function catalog(): FixtureCatalog {
  const c = new FixtureCatalog();
  c.tools.push(
    {
      name: "echo",
      description: "Echoes",
      uri: "echo://",
      type: "fixture",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    { name: "book", uri: "ask://", type: "fixture", inputSchema: { type: "object" } },
    { name: "third", uri: "echo://", type: "fixture", inputSchema: { type: "object" } },
  );
  return c;
}

async function start(options: Parameters<typeof startMcpFixture>[1] = {}): Promise<McpFixture> {
  const fixture = await startMcpFixture(handlers, { catalog: catalog(), ...options });
  fixtures.push(fixture);
  return fixture;
}

/** The `_meta` a stateless client sends, with `extra` merged over it. */
function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [META.protocolVersion]: MODERN,
    [META.clientCapabilities]: {},
    [META.clientInfo]: { name: "modern-test", version: "1.0.0" },
    ...extra,
  };
}

/** The headers a stateless client sends for `method` (Mcp-Name added for methods that mirror one). */
function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name !== undefined ? { "mcp-name": name } : {}),
  };
}

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** POSTs one JSON-RPC message (or anything) and reads a JSON answer. */
async function post(
  fixture: McpFixture,
  message: unknown,
  headers: Record<string, string>,
  path = "/mcp",
): Promise<Reply> {
  const response = await fetch(`${fixture.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").startsWith("application/json")) {
    throw new Error(
      `expected a JSON answer, got ${response.status} ${response.headers.get("content-type")}: ${text}`,
    );
  }
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as Record<string, unknown>,
  };
}

/** A stateless request with correct headers. */
function modern(
  fixture: McpFixture,
  method: string,
  params: Record<string, unknown> = {},
  options: { id?: string | number; meta?: Record<string, unknown>; name?: string } = {},
): Promise<Reply> {
  return post(
    fixture,
    { jsonrpc: "2.0", id: options.id ?? 1, method, params: { ...params, _meta: meta(options.meta) } },
    modernHeaders(method, options.name),
  );
}

function resultOf(reply: Reply): Record<string, unknown> {
  if (!("result" in reply.body)) throw new Error(`expected a result, got ${JSON.stringify(reply.body)}`);
  return reply.body.result as Record<string, unknown>;
}

function errorOf(reply: Reply): { code: number; message: string; data?: unknown } {
  if (!("error" in reply.body)) throw new Error(`expected an error, got ${JSON.stringify(reply.body)}`);
  return reply.body.error as { code: number; message: string; data?: unknown };
}

/** Reads JSON-RPC messages from an SSE response, one at a time. */
class SseMessages {
  private readonly queue: Record<string, unknown>[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly parser = createParser({
    onEvent: ({ data }) => {
      if (data) this.queue.push(JSON.parse(data) as Record<string, unknown>);
    },
  });

  constructor(response: Response) {
    if (!response.body) throw new Error("the SSE response has no body");
    this.reader = response.body.getReader();
  }

  async next(timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (Date.now() > deadline) throw new Error("no SSE message arrived in time");
      const { value, done } = await this.reader.read();
      if (done) throw new Error("the SSE stream ended");
      this.parser.feed(this.decoder.decode(value, { stream: true }));
    }
    return this.queue.shift() as Record<string, unknown>;
  }

  /** Every message until the stream ends. */
  async rest(): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    for (;;) {
      try {
        all.push(await this.next());
      } catch (error) {
        if ((error as Error).message === "the SSE stream ended") return all;
        throw error;
      }
    }
  }
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("MCP 2026-07-28 over Streamable HTTP (stateless)", () => {
  it("serves tools/list with resultType, serverInfo and caching hints, and no session", async () => {
    const fixture = await start();
    const reply = await modern(fixture, "tools/list", {}, { id: "list-1" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("mcp-session-id")).toBeNull();
    expect(reply.body.id).toBe("list-1");
    const result = resultOf(reply);
    expect(result.resultType).toBe("complete");
    expect(result._meta).toEqual({ [META.serverInfo]: SERVER_INFO });
    expect(result.ttlMs).toBe(60_000);
    expect(result.cacheScope).toBe("public");
    expect((result.tools as { name: string }[]).map((t) => t.name)).toEqual(["echo", "book"]);
    expect(typeof result.nextCursor).toBe("string");
    const second = resultOf(await modern(fixture, "tools/list", { cursor: result.nextCursor }));
    expect((second.tools as { name: string }[]).map((t) => t.name)).toEqual(["third"]);
    expect(second.nextCursor).toBeUndefined();
    expect([...fixture.endpoint.sessions.all()]).toHaveLength(0);
  });

  it("serves tools/call with resultType and serverInfo", async () => {
    const fixture = await start();
    const reply = await modern(
      fixture,
      "tools/call",
      { name: "echo", arguments: { city: "Oslo" } },
      { name: "echo" },
    );
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    const result = resultOf(reply);
    expect(result.content).toEqual([{ type: "text", text: 'echo {"city":"Oslo"}' }]);
    expect(result.resultType).toBe("complete");
    expect(result._meta).toEqual({ [META.serverInfo]: SERVER_INFO });
    expect(result.isError).toBeFalsy();
  });

  it("accepts a Base64 sentinel Mcp-Name for tools/call", async () => {
    const fixture = await start();
    const sentinel = `=?base64?${Buffer.from("echo").toString("base64")}?=`;
    const reply = await modern(
      fixture,
      "tools/call",
      { name: "echo", arguments: { city: "Rome" } },
      { name: sentinel },
    );
    expect(reply.status).toBe(200);
    expect(resultOf(reply).content).toEqual([{ type: "text", text: 'echo {"city":"Rome"}' }]);
  });

  it("answers server/discover with the supported versions, capabilities and server info", async () => {
    const fixture = await start();
    const reply = await modern(fixture, "server/discover");
    expect(reply.status).toBe(200);
    const result = resultOf(reply);
    expect(result.supportedVersions).toEqual([...MCP_REVISIONS].reverse());
    // Prompts are declared before there is one: prompts/list answers, and list_changed tells of the first.
    expect(result.capabilities).toEqual({
      tools: { listChanged: true },
      logging: {},
      prompts: { listChanged: true },
    });
    expect(result.serverInfo).toEqual(SERVER_INFO);
    expect(result.resultType).toBe("complete");
    expect(result._meta).toEqual({ [META.serverInfo]: SERVER_INFO });
    expect(result.ttlMs).toBe(60_000);
    expect(result.cacheScope).toBe("public");
  });

  it("lists only the accepted revisions in server/discover", async () => {
    const fixture = await start({ settings: { acceptedRevisions: ["2025-11-25", MODERN] } });
    expect(resultOf(await modern(fixture, "server/discover")).supportedVersions).toEqual([
      MODERN,
      "2025-11-25",
    ]);
  });

  it("refuses an Mcp-Method header that differs from the body with 400 / -32020, keeping the id", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      { jsonrpc: "2.0", id: "mismatch-7", method: "tools/call", params: { name: "echo", _meta: meta() } },
      { ...modernHeaders("tools/list"), "mcp-name": "echo" },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe("mismatch-7");
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses a missing Mcp-Method header with 400 / -32020", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: meta() } },
      { "mcp-protocol-version": MODERN },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe(3);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses an Mcp-Name header that differs from the tool name with 400 / -32020", async () => {
    const fixture = await start();
    const reply = await modern(
      fixture,
      "tools/call",
      { name: "echo", arguments: { city: "x" } },
      { id: 11, name: "book" },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe(11);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses a tools/call without Mcp-Name with 400 / -32020", async () => {
    const fixture = await start();
    const reply = await modern(fixture, "tools/call", { name: "echo", arguments: { city: "x" } }, { id: 12 });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses a request naming its version in _meta but not in the header with 400 / -32020", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      { jsonrpc: "2.0", id: "no-version", method: "tools/list", params: { _meta: meta() } },
      { "mcp-method": "tools/list" },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe("no-version");
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses a version header that differs from _meta with -32020", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      { jsonrpc: "2.0", id: "v-1", method: "tools/list", params: { _meta: meta() } },
      { ...modernHeaders("tools/list"), "mcp-protocol-version": "2025-11-25" },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe("v-1");
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses a header/_meta version mismatch with -32020 even when the _meta version is unsupported", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      {
        jsonrpc: "2.0",
        id: "v-2",
        method: "tools/list",
        params: { _meta: meta({ [META.protocolVersion]: "2099-01-01" }) },
      },
      modernHeaders("tools/list"),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe("v-2");
    expect(errorOf(reply).code).toBe(-32020);
  });

  it("refuses an unsupported version with 400 / -32022 listing the supported ones", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      {
        jsonrpc: "2.0",
        id: 21,
        method: "tools/list",
        params: { _meta: meta({ [META.protocolVersion]: "2099-01-01" }) },
      },
      { ...modernHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe(21);
    const error = errorOf(reply);
    expect(error.code).toBe(-32022);
    expect(error.data).toEqual({ supported: [...MCP_REVISIONS].reverse(), requested: "2099-01-01" });
  });

  it("refuses the modern revision with -32022 when the operator accepts only legacy revisions", async () => {
    const fixture = await start({ settings: { acceptedRevisions: ["2025-06-18", "2025-11-25"] } });
    const reply = await modern(fixture, "tools/list", {}, { id: 22 });
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({
      code: -32022,
      data: { supported: ["2025-11-25", "2025-06-18"], requested: MODERN },
    });
  });

  it("refuses a request without _meta under a 2026-07-28 header with 400 / -32602", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      { jsonrpc: "2.0", id: 31, method: "tools/list", params: {} },
      modernHeaders("tools/list"),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe(31);
    expect(errorOf(reply).code).toBe(-32602);
  });

  it("refuses _meta without clientCapabilities with 400 / -32602", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      { jsonrpc: "2.0", id: 32, method: "tools/list", params: { _meta: { [META.protocolVersion]: MODERN } } },
      modernHeaders("tools/list"),
    );
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32602);
  });

  it.each([
    ["initialize", { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: "x", version: "1" } }],
    ["ping", {}],
    ["logging/setLevel", { level: "debug" }],
    ["resources/subscribe", { uri: "file:///a.txt" }],
  ])("answers the removed method %s with 404 / -32601, keeping the id", async (method, params) => {
    const fixture = await start();
    const reply = await modern(fixture, method, params, { id: `removed-${method}` });
    expect(reply.status).toBe(404);
    expect(reply.body.id).toBe(`removed-${method}`);
    expect(errorOf(reply).code).toBe(-32601);
    expect([...fixture.endpoint.sessions.all()]).toHaveLength(0);
  });

  it("answers an unknown method with 404 / -32601, keeping the id", async () => {
    const fixture = await start();
    const reply = await modern(fixture, "tools/frobnicate", {}, { id: 41 });
    expect(reply.status).toBe(404);
    expect(reply.body.id).toBe(41);
    expect(errorOf(reply).code).toBe(-32601);
  });

  it("answers GET and DELETE without a session with 405", async () => {
    const fixture = await start();
    const get = await fetch(`${fixture.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    await get.body?.cancel();
    const del = await fetch(`${fixture.url}/mcp`, { method: "DELETE" });
    expect(del.status).toBe(405);
    await del.body?.cancel();
  });

  it("answers an unknown tool with -32602, keeping the id", async () => {
    const fixture = await start();
    const reply = await modern(
      fixture,
      "tools/call",
      { name: "nope", arguments: {} },
      { id: 51, name: "nope" },
    );
    expect(reply.body.id).toBe(51);
    expect(errorOf(reply).code).toBe(-32602);
  });
});

describe("a legacy session on the same endpoint", () => {
  async function initialize(
    fixture: McpFixture,
    protocolVersion: string,
  ): Promise<{ session: string; result: Record<string, unknown> }> {
    const reply = await post(
      fixture,
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "legacy", version: "1.0.0" } },
      },
      {},
    );
    expect(reply.status).toBe(200);
    const session = reply.headers.get("mcp-session-id");
    if (!session) throw new Error("initialize gave no session");
    return { session, result: resultOf(reply) };
  }

  it("initializes a session, lists tools in the legacy shape, and does not know server/discover", async () => {
    const fixture = await start();
    const { session, result } = await initialize(fixture, "2025-11-25");
    expect(result.protocolVersion).toBe("2025-11-25");
    expect(result.serverInfo).toEqual(SERVER_INFO);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const initialized = await fetch(`${fixture.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(initialized.status).toBe(202);
    await initialized.body?.cancel();

    const list = await post(fixture, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, headers);
    expect(list.status).toBe(200);
    const tools = resultOf(list);
    expect((tools.tools as { name: string }[]).map((t) => t.name)).toEqual(["echo", "book"]);
    expect(tools.resultType).toBeUndefined();
    expect(tools.ttlMs).toBeUndefined();
    expect(tools._meta).toBeUndefined();

    const discover = await post(
      fixture,
      { jsonrpc: "2.0", id: 2, method: "server/discover", params: {} },
      headers,
    );
    expect(discover.body.id).toBe(2);
    expect(errorOf(discover).code).toBe(-32601);

    const listen = await post(
      fixture,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true } },
      },
      headers,
    );
    expect(errorOf(listen).code).toBe(-32601);

    const ping = await post(fixture, { jsonrpc: "2.0", id: 4, method: "ping" }, headers);
    expect(resultOf(ping)).toEqual({});
  });

  it("walks a future revision asked on initialize back to the newest legacy one", async () => {
    const fixture = await start();
    const { result } = await initialize(fixture, "2099-01-01");
    expect(result.protocolVersion).toBe("2025-11-25");
  });

  it("serves a legacy session and a stateless client side by side", async () => {
    const fixture = await start();
    const { session } = await initialize(fixture, "2025-06-18");
    const stateless = await modern(fixture, "tools/list");
    expect(resultOf(stateless).resultType).toBe("complete");
    const legacy = await post(
      fixture,
      { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} },
      { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
    );
    expect(resultOf(legacy).resultType).toBeUndefined();
    expect([...fixture.endpoint.sessions.all()]).toHaveLength(1);
  });
});

describe("subscriptions/listen", () => {
  async function listen(
    fixture: McpFixture,
    id: string | number,
    notifications: Record<string, unknown>,
  ): Promise<{ response: Response; messages: SseMessages }> {
    const controller = new AbortController();
    streams.push(controller);
    const response = await fetch(`${fixture.url}/mcp`, {
      method: "POST",
      signal: controller.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...modernHeaders("subscriptions/listen"),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: { notifications, _meta: meta() },
      }),
    });
    return { response, messages: new SseMessages(response) };
  }

  it("acknowledges first, then delivers a catalog change with the subscription id", async () => {
    const fixture = await start();
    const { response, messages } = await listen(fixture, "sub-1", { toolsListChanged: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await messages.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { toolsListChanged: true }, _meta: { [META.subscriptionId]: "sub-1" } },
    });
    expect(fixture.endpoint.listeners.size).toBe(1);

    fixture.catalog.tools.push({
      name: "added",
      uri: "echo://",
      type: "fixture",
      inputSchema: { type: "object" },
    });
    expect(fixture.endpoint.listChanged("", "tools")).toBe(1);
    expect(await messages.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: "sub-1" } },
    });
    // Only what the filter asked for reaches the stream.
    expect(fixture.endpoint.listChanged("", "prompts")).toBe(0);
  });

  it("narrows the acknowledged filter to what the namespace can deliver", async () => {
    const fixture = await start();
    const { messages } = await listen(fixture, 5, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    });
    const ack = await messages.next();
    expect(ack.method).toBe("notifications/subscriptions/acknowledged");
    // No resources in the catalog and no service that could serve them: resource changes are not deliverable.
    expect((ack.params as { notifications: unknown }).notifications).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
    });
  });

  it("delivers only to the namespace that changed", async () => {
    const fixture = await start();
    const root = await listen(fixture, "root", { toolsListChanged: true });
    await root.messages.next();
    const { messages: ops, response } = await (async () => {
      const controller = new AbortController();
      streams.push(controller);
      const r = await fetch(`${fixture.url}/ops/mcp`, {
        method: "POST",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...modernHeaders("subscriptions/listen"),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "ops",
          method: "subscriptions/listen",
          params: { notifications: { toolsListChanged: true }, _meta: meta() },
        }),
      });
      return { response: r, messages: new SseMessages(r) };
    })();
    expect(response.status).toBe(200);
    await ops.next();
    expect(fixture.endpoint.listChanged("ops", "tools")).toBe(1);
    expect(await ops.next()).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: "ops" } },
    });
    expect(fixture.endpoint.listChanged(undefined, "tools")).toBe(2);
    expect(await root.messages.next()).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: "root" } },
    });
  });

  it("forgets the listener when the client closes the stream", async () => {
    const fixture = await start();
    const { messages } = await listen(fixture, "gone", { toolsListChanged: true });
    await messages.next();
    expect(fixture.endpoint.listeners.size).toBe(1);
    for (const stream of streams.splice(0)) stream.abort();
    await waitFor(() => fixture.endpoint.listeners.size === 0, "the listener to be removed");
    expect(fixture.endpoint.listChanged("", "tools")).toBe(0);
  });

  it("refuses a listen request without a filter with 400 / -32602", async () => {
    const fixture = await start();
    const reply = await post(
      fixture,
      { jsonrpc: "2.0", id: "nf", method: "subscriptions/listen", params: { _meta: meta() } },
      modernHeaders("subscriptions/listen"),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe("nf");
    expect(errorOf(reply).code).toBe(-32602);
  });

  it("refuses a listen stream past the bound with 503", async () => {
    const fixture = await start({ endpoint: { maxListenStreams: 1 } });
    const first = await listen(fixture, "one", { toolsListChanged: true });
    await first.messages.next();
    const reply = await post(
      fixture,
      {
        jsonrpc: "2.0",
        id: "two",
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: meta() },
      },
      modernHeaders("subscriptions/listen"),
    );
    expect(reply.status).toBe(503);
    expect(reply.body.id).toBe("two");
    expect(errorOf(reply).code).toBe(-32000);
  });
});

describe("log messages and input for stateless clients", () => {
  it("sends no log notifications to a stateless call that names no log level", async () => {
    const fixture = await start();
    fixture.engines.push({ engineType: "fixture", language: "python" });
    const reply = await modern(
      fixture,
      "tools/call",
      { name: "execute_code", arguments: { language: "python", code: "print(1)" } },
      { name: "execute_code" },
    );
    // Nothing was sent before the result, so the answer is plain JSON rather than a stream.
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    const result = resultOf(reply);
    expect(result.structuredContent).toMatchObject({ stdout: "first\nsecond\n", exitCode: 0 });
    expect(result.resultType).toBe("complete");
  });

  it("sends log notifications at the level a stateless call names", async () => {
    const fixture = await start();
    fixture.engines.push({ engineType: "fixture", language: "python" });
    const response = await fetch(`${fixture.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...modernHeaders("tools/call", "execute_code"),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "logged",
        method: "tools/call",
        params: {
          name: "execute_code",
          arguments: { language: "python", code: "print(1)" },
          _meta: meta({ [META.logLevel]: "info" }),
        },
      }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const all = await new SseMessages(response).rest();
    const logs = all.filter((m) => m.method === "notifications/message");
    expect(logs.map((m) => (m.params as { data: unknown }).data)).toEqual([
      { stream: "stdout", text: "first\n" },
      { stream: "stdout", text: "second\n" },
    ]);
    const final = all.at(-1) as { id?: unknown; result?: Record<string, unknown> };
    expect(final.id).toBe("logged");
    expect(final.result?.resultType).toBe("complete");
  });

  it("answers input_required with keyed requests and a sealed state, and finishes on the repeat", async () => {
    const fixture = await start();
    const capabilities = { [META.clientCapabilities]: { elicitation: {} } };
    const first = await modern(
      fixture,
      "tools/call",
      { name: "book", arguments: {} },
      { name: "book", meta: capabilities },
    );
    expect(first.status).toBe(200);
    const asked = resultOf(first);
    expect(asked.resultType).toBe("input_required");
    expect(asked.inputRequests).toEqual({
      confirm: {
        method: "elicitation/create",
        params: {
          message: "Book the flight?",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        },
      },
    });
    expect(typeof asked.requestState).toBe("string");
    expect(asked.requestState as string).not.toContain("backend-step-1");
    expect((asked._meta as Record<string, unknown>)[META.serverInfo]).toEqual(SERVER_INFO);

    const inputResponses = { confirm: { action: "accept", content: { ok: true } } };
    const second = await modern(
      fixture,
      "tools/call",
      { name: "book", arguments: {}, inputResponses, requestState: asked.requestState },
      { name: "book", meta: capabilities },
    );
    const done = resultOf(second);
    expect(done.resultType).toBe("complete");
    expect(done.content).toEqual([
      {
        type: "text",
        text: `answered ${JSON.stringify({ responses: inputResponses, state: "backend-step-1" })}`,
      },
    ]);
  });

  it("refuses a tampered request state with -32602", async () => {
    const fixture = await start();
    const capabilities = { [META.clientCapabilities]: { elicitation: {} } };
    const asked = resultOf(
      await modern(
        fixture,
        "tools/call",
        { name: "book", arguments: {} },
        { name: "book", meta: capabilities },
      ),
    );
    const reply = await modern(
      fixture,
      "tools/call",
      {
        name: "book",
        arguments: {},
        inputResponses: { confirm: { action: "accept", content: { ok: true } } },
        requestState: `${asked.requestState as string}-TAMPERED`,
      },
      { id: "tampered", name: "book", meta: capabilities },
    );
    expect(reply.body.id).toBe("tampered");
    expect(errorOf(reply).code).toBe(-32602);
  });

  it("refuses input the client did not declare with 400 / -32021 naming the capability", async () => {
    const fixture = await start();
    const reply = await modern(
      fixture,
      "tools/call",
      { name: "book", arguments: {} },
      { id: "nocap", name: "book" },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe("nocap");
    const error = errorOf(reply);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });
});
