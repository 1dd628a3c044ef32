import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Code, type ServiceHandlers, TrestleError } from "@trestle/core";
import { fromCapabilityHandlers } from "@trestle/wanaku";
import { afterEach, describe, expect, it } from "vitest";
import { FixtureCatalog, type McpFixture, startMcpFixture } from "./mcp-fixture.js";

const fixtures: McpFixture[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(fixtures.splice(0).map((f) => f.close()));
});

let gate: () => void = () => undefined;
const seen: { aborted: string[]; headers: Record<string, string>[] } = { aborted: [], headers: [] };

const handlers: ServiceHandlers = {
  callTool: async (call, ctx) => {
    seen.headers.push({ ...ctx.metadata });
    const uri = call.tool.uri;
    if (uri === "fail://")
      throw new TrestleError("the weather service is down for maintenance", Code.Internal);
    if (uri === "slow://") {
      await new Promise((resolve, reject) => {
        const t = setTimeout(resolve, 10_000);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(t);
          seen.aborted.push(uri);
          reject(ctx.signal.reason);
        });
      });
    }
    return { content: [{ type: "text", text: `echo ${JSON.stringify(call.arguments)}` }] };
  },
  readResource: (read) => ({
    contents: [{ uri: read.uri, text: `read ${read.uri} ${JSON.stringify(read.params ?? {})}` }],
  }),
  async *executeCode() {
    yield { type: "output", stream: "stdout", text: "first\n" };
    await new Promise<void>((resolve) => {
      gate = resolve;
    });
    yield { type: "output", stream: "stdout", text: "second\n" };
    yield { type: "exit", status: "completed", exitCode: 0 };
  },
};

function catalogWithTools(): FixtureCatalog {
  const catalog = new FixtureCatalog();
  catalog.tools.push(
    {
      name: "echo",
      description: "Echoes",
      uri: "echo://",
      type: "fixture",
      inputSchema: {
        type: "object",
        properties: {
          city: { type: "string" },
          apiVersion: { type: "string", target: "header", scope: "service", value: "v2" },
        },
        required: ["city"],
      },
    },
    { name: "broken", uri: "fail://", type: "fixture", inputSchema: { type: "object" } },
    { name: "slow", uri: "slow://", type: "fixture", inputSchema: { type: "object" } },
  );
  return catalog;
}

async function connect(
  fixture: McpFixture,
  path = "/mcp",
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${fixture.url}${path}`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

async function start(options: Parameters<typeof startMcpFixture>[1] = {}): Promise<McpFixture> {
  const fixture = await startMcpFixture(handlers, { catalog: catalogWithTools(), ...options });
  fixtures.push(fixture);
  return fixture;
}

describe("MCP endpoint over Streamable HTTP", () => {
  it("initializes a session, names the router, and advertises what it serves (prompts even before there is one)", async () => {
    const fixture = await start();
    const client = await connect(fixture);
    expect(client.getServerVersion()?.name).toBe("trestle");
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toEqual({ listChanged: true });
    expect(caps?.resources).toBeUndefined();
    // prompts/list is answered (empty), and a prompt added later is told by list_changed.
    expect(caps?.prompts).toEqual({ listChanged: true });
  });

  it("lists tools page by page with routing keywords hidden", async () => {
    const fixture = await start();
    const client = await connect(fixture);
    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(["echo", "broken"]);
    expect(first.nextCursor).toBeDefined();
    const second = await client.listTools({ cursor: first.nextCursor as string });
    expect(second.tools.map((t) => t.name)).toEqual(["slow"]);
    expect(second.nextCursor).toBeUndefined();
    expect(first.tools[0]?.inputSchema.properties?.apiVersion).toEqual({ type: "string", default: "v2" });
  });

  it("routes tools/call to the capability and returns its content", async () => {
    const fixture = await start();
    const client = await connect(fixture, "/mcp", { authorization: "Bearer forwarded" });
    const result = await client.callTool({ name: "echo", arguments: { city: "Oslo", days: 3 } });
    // The arguments reach the service with their JSON types: turning them into text is the Wanaku wire's rule,
    // applied by its transports (and tested there), not by the front or the bridge.
    expect(result.content).toEqual([{ type: "text", text: 'echo {"city":"Oslo","days":3}' }]);
    expect(result.isError).toBeFalsy();
    expect(seen.headers.at(-1)?.authorization).toBe("Bearer forwarded");
  });

  it("returns a capability failure as a tool error with the service's message", async () => {
    const fixture = await start();
    const client = await connect(fixture);
    const result = await client.callTool({ name: "broken", arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("the weather service is down for maintenance");
  });

  it("returns missing required arguments as a tool error naming them", async () => {
    const fixture = await start();
    const client = await connect(fixture);
    const result = await client.callTool({ name: "echo", arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("city");
  });

  it("answers an unknown tool with a protocol error", async () => {
    const fixture = await start();
    const client = await connect(fixture);
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
  });

  it("delivers list_changed to a connected client", async () => {
    const fixture = await start();
    const client = await connect(fixture);
    const received = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    // The client opens its GET stream after initialization; retry until it is there.
    const deadline = Date.now() + 5_000;
    while (fixture.endpoint.listChanged("", "tools") === 0) {
      if (Date.now() > deadline) throw new Error("the client never opened its stream");
      await new Promise((r) => setTimeout(r, 20));
    }
    await received;
  });

  it("cancels the capability call when the client cancels", async () => {
    const fixture = await start();
    const client = await connect(fixture);
    const controller = new AbortController();
    const call = client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort("user pressed stop"), 200);
    await expect(call).rejects.toThrow();
    const deadline = Date.now() + 3_000;
    while (!seen.aborted.includes("slow://")) {
      if (Date.now() > deadline) throw new Error("the capability never saw the cancellation");
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it("streams code execution output to the client before the engine finishes", async () => {
    const fixture = await start();
    fixture.engines.push({ engineType: "fixture", language: "python" });
    const client = await connect(fixture);
    const tools = await client.listTools({ cursor: Buffer.from("o:2").toString("base64url") });
    const exec = tools.tools.find((t) => t.name === "execute_code");
    expect(exec?.inputSchema.properties?.language).toMatchObject({ enum: ["python"] });
    const progress: string[] = [];
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    const result = client.callTool(
      { name: "execute_code", arguments: { language: "python", code: "print(1)" } },
      CallToolResultSchema,
      {
        onprogress: (p) => {
          progress.push(p.message ?? "");
          if (progress.length === 1) gate();
        },
      },
    );
    const final = await result;
    expect(progress).toEqual(["first\n", "second\n"]);
    expect(logs).toContainEqual({ stream: "stdout", text: "first\n" });
    expect(final.structuredContent).toEqual({
      exitCode: 0,
      status: "completed",
      stdout: "first\nsecond\n",
      stderr: "",
    });
  });

  it("serves a Wanaku capability's binary resource content as the blob its transport decodes", async () => {
    const catalog = catalogWithTools();
    catalog.resources.push(
      { name: "logo", location: "test://logo", type: "fixture", mimeType: "image/png" },
      { name: "notes", location: "test://notes", type: "fixture", mimeType: "text/plain" },
    );
    // The Wanaku contract carries content as strings: binary comes Base64-encoded, and Wanaku's rules decide.
    const fixture = await startMcpFixture(
      fromCapabilityHandlers({
        resourceAcquirer: (request) => ({
          content: [request.location === "test://logo" ? "iVBORw0KGgo=" : "plain text"],
        }),
      }),
      { catalog },
    );
    fixtures.push(fixture);
    const client = await connect(fixture);
    expect((await client.readResource({ uri: "test://logo" })).contents).toEqual([
      { uri: "test://logo", mimeType: "image/png", blob: "iVBORw0KGgo=" },
    ]);
    expect((await client.readResource({ uri: "test://notes" })).contents).toEqual([
      { uri: "test://notes", mimeType: "text/plain", text: "plain text" },
    ]);
  });

  it("serves a backend's resource contents as they are: text stays text however it looks, a blob stays a blob", async () => {
    const catalog = catalogWithTools();
    catalog.resources.push({ name: "logo", location: "test://logo", type: "fixture", mimeType: "image/png" });
    // What an MCP forward returns: the front applies no protocol's rule to it (no Base64 guessing).
    const fixture = await startMcpFixture(
      {
        readResource: (read) => ({
          contents: [
            { uri: read.uri, mimeType: "image/png", text: "iVBORw0KGgo=" },
            { uri: read.uri, mimeType: "image/png", blob: "AAEC" },
          ],
        }),
      },
      { catalog },
    );
    fixtures.push(fixture);
    const client = await connect(fixture);
    expect((await client.readResource({ uri: "test://logo" })).contents).toEqual([
      { uri: "test://logo", mimeType: "image/png", text: "iVBORw0KGgo=" },
      { uri: "test://logo", mimeType: "image/png", blob: "AAEC" },
    ]);
  });

  it("lets a session continue on another replica that shares the session key", async () => {
    const secret = Buffer.alloc(32, 7);
    const a = await start({ secret });
    const b = await start({ secret });
    const client = await connect(a);
    const transport = (client as unknown as { _transport: StreamableHTTPClientTransport })._transport;
    const sessionId = transport.sessionId as string;
    const response = await fetch(`${b.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "echo", arguments: { city: "Rome" } },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: 9,
      result: { content: [{ type: "text", text: 'echo {"city":"Rome"}' }] },
    });
  });

  it("serves without sessions in stateless mode", async () => {
    const fixture = await start({ stateless: true });
    const client = await connect(fixture);
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const result = await client.callTool({ name: "echo", arguments: { city: "Lima" } });
    expect(result.isError).toBeFalsy();
    const get = await fetch(`${fixture.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });
});

describe("MCP endpoint refusals", () => {
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });

  it("answers malformed JSON with a parse error and keeps serving", async () => {
    const fixture = await start();
    const response = await post(fixture.url, "{not json");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect((await post(fixture.url, init)).status).toBe(200);
  });

  it("answers a message that is not JSON-RPC with an invalid request error", async () => {
    const fixture = await start();
    for (const body of [
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      "[]",
      '{"id":1}',
      '{"jsonrpc":"2.0","id":{},"method":"x"}',
    ]) {
      const response = await post(fixture.url, body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }
  });

  it("requires a known session after initialization", async () => {
    const fixture = await start();
    const ping = '{"jsonrpc":"2.0","id":2,"method":"ping"}';
    expect((await post(fixture.url, ping)).status).toBe(400);
    expect((await post(fixture.url, ping, { "mcp-session-id": "forged.session" })).status).toBe(404);
    const session = (await post(fixture.url, init)).headers.get("mcp-session-id") as string;
    const ok = await post(fixture.url, ping, { "mcp-session-id": session });
    expect(await ok.json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    const del = await fetch(`${fixture.url}/mcp`, {
      method: "DELETE",
      headers: { "mcp-session-id": session },
    });
    expect(del.status).toBe(200);
    expect((await post(fixture.url, ping, { "mcp-session-id": session })).status).toBe(404);
  });

  it("refuses an oversized body with 413", async () => {
    const fixture = await start({ maxBodyBytes: 1000 });
    const response = await post(
      fixture.url,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { x: "y".repeat(5000) } }),
    );
    expect(response.status).toBe(413);
  });

  it("refuses a client that does not accept both JSON and SSE, and a wrong content type", async () => {
    const fixture = await start();
    expect((await post(fixture.url, init, { accept: "application/json" })).status).toBe(406);
    expect((await post(fixture.url, init, { "content-type": "text/plain" })).status).toBe(415);
  });

  it("answers notifications alone with 202 and a batch with an array", async () => {
    const fixture = await start();
    const session = (await post(fixture.url, init)).headers.get("mcp-session-id") as string;
    const h = { "mcp-session-id": session };
    expect(
      (await post(fixture.url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', h)).status,
    ).toBe(202);
    const batch = await post(
      fixture.url,
      JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "ping" },
        { jsonrpc: "2.0", id: "b", method: "no/such/method" },
      ]),
      h,
    );
    const body = (await batch.json()) as { id: string; error?: { code: number } }[];
    expect(body.map((m) => m.id).sort()).toEqual(["a", "b"]);
    expect(body.find((m) => m.id === "b")?.error?.code).toBe(-32601);
  });
});

describe("MCP endpoint limits", () => {
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  const call = (id: number, name = "echo") => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: { city: "Oslo" } },
  });
  async function session(url: string): Promise<Record<string, string>> {
    return { "mcp-session-id": (await post(url, init)).headers.get("mcp-session-id") as string };
  }

  it("refuses a batch over maxBatchMessages whole: one JSON-RPC error, HTTP 400, nothing dispatched", async () => {
    const fixture = await start({ endpoint: { maxBatchMessages: 3 } });
    const h = await session(fixture.url);
    const before = seen.headers.length;
    const over = await post(fixture.url, JSON.stringify([call(1), call(2), call(3), call(4)]), h);
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid Request: a batch may hold at most 3 messages; this one holds 4",
      },
    });
    expect(seen.headers.length).toBe(before);
    // At the cap, the batch is served, and its answer holds one entry per request.
    const at = await post(fixture.url, JSON.stringify([call(1), call(2), call(3)]), h);
    expect(((await at.json()) as unknown[]).length).toBe(3);
    expect(seen.headers.length).toBe(before + 3);
  });

  it("counts each message of a batch against the rate limit, and dispatches nothing when it is refused", async () => {
    const asked: number[] = [];
    let allow = false;
    const limiter = {
      admitMore: (_req: unknown, count: number) => {
        asked.push(count);
        return allow
          ? ({ ok: true } as const)
          : ({ ok: false, retryAfterSeconds: 3, message: "Too many requests: slow down" } as const);
      },
    };
    const fixture = await start({ endpoint: { limiter } });
    const h = await session(fixture.url);
    const before = seen.headers.length;
    const refused = await post(fixture.url, JSON.stringify([call(1), call(2), call(3)]), h);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("3");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "Too many requests: slow down",
    );
    expect(asked).toEqual([2]);
    expect(seen.headers.length).toBe(before);
    allow = true;
    expect((await post(fixture.url, JSON.stringify([call(1), call(2)]), h)).status).toBe(200);
    // A single message was admitted (or not) by the front door already: nothing more to count.
    expect((await post(fixture.url, JSON.stringify(call(5)), h)).status).toBe(200);
    expect(asked).toEqual([2, 1]);
  });

  it("caps the POSTs one session has awaiting answers; its one GET stream is not counted against them", async () => {
    const fixture = await start({ endpoint: { maxStreamsPerSession: 2 } });
    const h = await session(fixture.url);
    // A client's standing GET stream, opened first as SDK clients do, leaves the whole budget to its calls.
    const stream = await fetch(`${fixture.url}/mcp`, { headers: { accept: "text/event-stream", ...h } });
    expect(stream.status).toBe(200);
    const controller = new AbortController();
    const outcomes: (number | "pending")[] = ["pending", "pending"];
    const pending = [1, 2].map((id, i) =>
      fetch(`${fixture.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...h },
        body: JSON.stringify(call(id, "slow")),
        signal: controller.signal,
      })
        .then((res) => {
          outcomes[i] = res.status;
        })
        .catch(() => undefined),
    );
    await new Promise((r) => setTimeout(r, 200));
    // Both calls were taken (a refusal would have been answered at once), and the next one is over the cap.
    expect(outcomes).toEqual(["pending", "pending"]);
    const third = await post(fixture.url, JSON.stringify(call(3)), h);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("1");
    expect(((await third.json()) as { error: { message: string } }).error.message).toContain("at most 2");
    // The GET stream stays one per session.
    const second = await fetch(`${fixture.url}/mcp`, { headers: { accept: "text/event-stream", ...h } });
    expect(second.status).toBe(409);
    await second.body?.cancel();
    // Another session is not affected, and the budget comes back once the answers are in (or abandoned).
    expect((await post(fixture.url, JSON.stringify(call(4)), await session(fixture.url))).status).toBe(200);
    controller.abort();
    await Promise.all(pending);
    await new Promise((r) => setTimeout(r, 100));
    expect((await post(fixture.url, JSON.stringify(call(5)), h)).status).toBe(200);
    await stream.body?.cancel();
  });

  it("answers a DELETE its ledger cannot record with 503 and leaves the session going; a retry ends it", async () => {
    let down = true;
    const ends: string[] = [];
    const fixture = await start({
      ledger: {
        async end(digest) {
          if (down) throw new TrestleError("The catalog store (PostgreSQL) is unavailable", Code.Unavailable);
          ends.push(digest);
        },
        isEnded: async (digest) => ends.includes(digest),
      },
    });
    const h = await session(fixture.url);
    const remove = () => fetch(`${fixture.url}/mcp`, { method: "DELETE", headers: h });
    const refused = await remove();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "The session was not ended: its end could not be recorded for every replica (The catalog store (PostgreSQL) is unavailable); try again",
    );
    expect((await post(fixture.url, JSON.stringify(call(1)), h)).status).toBe(200);
    down = false;
    const ended = await remove();
    expect(ended.status).toBe(200);
    await ended.body?.cancel();
    expect(ends).toHaveLength(1);
    expect((await post(fixture.url, JSON.stringify(call(2)), h)).status).toBe(404);
  });

  it("refuses a resource URI longer than the cap with -32602, without matching it", async () => {
    const catalog = catalogWithTools();
    catalog.resources.push({
      name: "notes",
      location: "notes://{+owner}/{+path}/end",
      type: "fixture",
    } as never);
    const fixture = await start({ catalog, settings: { maxResourceUriLength: 1_000 } });
    const h = await session(fixture.url);
    const read = (uri: string) =>
      post(
        fixture.url,
        JSON.stringify({ jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri } }),
        h,
      );
    const long = await read(`notes://${"a/".repeat(100_000)}`);
    const body = (await long.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toBe(
      "Invalid params: the resource URI has 200008 characters; at most 1000 are accepted",
    );
    // Under the cap the template is matched and the read goes through.
    const ok = (await (await read("notes://ann/2024/plan/end")).json()) as {
      result: { contents: { text: string }[] };
    };
    expect(ok.result.contents[0]?.text).toContain("notes://ann/2024/plan/end");
  });
});
