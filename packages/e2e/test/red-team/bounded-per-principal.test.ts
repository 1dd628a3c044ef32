import { join } from "node:path";
import { wireMessageParams, wireToolCallParams } from "@trestle/transport-a2a/testing";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODERN_REVISION, modernRequest } from "../support/mcp-wire.js";
import {
  api,
  eventually,
  type RouterProcess,
  repoRoot,
  startNode,
  startRouter,
  stopAll,
  trestleCli,
} from "../support/processes.js";

/**
 * Red team, bounded work per principal: each test is an attack by one `mcp` principal that, before these bounds,
 * bought unbounded work or storage from the router (listen streams with megabytes of filter, open requests,
 * stored tasks and messages, requests without a rate) — and a check that another principal is still served.
 * Also the smaller holes of the same review: a page posting A2A as text/plain, a subscription to an unknown task
 * answered with a stack trace, nested secrets in the call events, the router's tokens forwarded to capabilities.
 */

const MODERN_FIXTURE = join(repoRoot, "packages", "e2e", "fixtures", "modern-mcp-server.mjs");
const ADMIN = "red-bounded-admin-0123456789ab";
const ALICE = "red-bounded-alice-0123456789ab";
const MALLORY = "red-bounded-mallory-0123456789";
const CAROL = "red-bounded-carol-0123456789ab";
const DAVE = "red-bounded-dave-01234567890ab";
const NESTED_CANARY = "nested-api-key-canary-31f0";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An open `subscriptions/listen` stream, or the refusal it got. */
interface Listen {
  status: number;
  error?: { code: number; message: string };
  close(): void;
}

/** Opens a listen stream for `token`, waiting for its acknowledgement (or reading its refusal). */
async function listen(
  router: RouterProcess,
  token: string,
  notifications: Record<string, unknown>,
): Promise<Listen> {
  const abort = new AbortController();
  const response = await fetch(`${router.url}/mcp`, {
    method: "POST",
    signal: abort.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_REVISION,
      "mcp-method": "subscriptions/listen",
      ...bearer(token),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: crypto.randomUUID(),
      method: "subscriptions/listen",
      params: {
        notifications,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "red-team", version: "1" },
        },
      },
    }),
  });
  const close = () => abort.abort();
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const body = (await response.json()) as { error?: { code: number; message: string } };
    return { status: response.status, ...(body.error ? { error: body.error } : {}), close };
  }
  // Read until the acknowledgement: the stream then stays open, held by this client.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let acknowledged = false;
  const parser = createParser({
    onEvent(event) {
      if (event.data.includes("notifications/subscriptions/acknowledged")) acknowledged = true;
    },
  });
  while (!acknowledged) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the listen stream ended before its acknowledgement");
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return { status: response.status, close };
}

async function a2a(
  router: RouterProcess,
  token: string,
  method: string,
  params: unknown,
  contentType = "application/json",
) {
  const response = await fetch(`${router.url}/a2a`, {
    method: "POST",
    headers: { "content-type": contentType, "a2a-version": "1.0", ...bearer(token) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await response.text();
  return {
    status: response.status,
    bytes: text.length,
    body: JSON.parse(text) as { result?: Record<string, unknown>; error?: { code: number; message: string } },
  };
}

describe("red team: bounded work and storage per principal", () => {
  let router: RouterProcess;
  const admin = bearer(ADMIN);
  const modernAs = (token: string, method: string, params: Record<string, unknown>, capabilities = {}) =>
    modernRequest(`${router.url}/mcp`, method, params, { capabilities, headers: bearer(token) });

  beforeAll(async () => {
    router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "ops", token: ADMIN, scopes: ["admin"] },
        ...[
          ["alice", ALICE],
          ["mallory", MALLORY],
          ["carol", CAROL],
          ["dave", DAVE],
        ].map(([name, token]) => ({ name, token, scopes: ["mcp"] })),
      ]),
      TRESTLE_MAX_LISTEN_STREAMS_PER_PRINCIPAL: "2",
      TRESTLE_MAX_REQUESTS_PER_PRINCIPAL: "4",
      TRESTLE_MAX_TASKS_PER_PRINCIPAL: "2",
    });
    await api(
      router.url,
      "POST",
      "/api/v1/forwards",
      {
        name: "modern",
        // The fixture loads the MCP SDK from the repository: its directory is visible (read-only) in the sandbox.
        upstream: { kind: "stdio", command: process.execPath, args: [MODERN_FIXTURE], cwd: repoRoot },
      },
      admin,
    );
    await eventually(
      async () =>
        (await api<{ name: string }[]>(router.url, "GET", "/api/v1/tools", undefined, admin)).some(
          (t) => t.name === "slow_compute",
        ) || undefined,
      60_000,
      "the forward's tools imported",
    );
  }, 120_000);

  afterAll(stopAll);

  it("listen: a principal holds a bounded number of streams, with bounded filters; another is still served", async () => {
    // Three megabytes of URIs in one filter (the review grew the router by 206 MiB with sixteen of these).
    const huge = await listen(router, ALICE, {
      resourceSubscriptions: Array.from({ length: 1_000 }, (_, i) => `file:///${"x".repeat(3_000)}/${i}`),
    });
    expect(huge.status).toBe(400);
    expect(huge.error?.code).toBe(-32602);
    const long = await listen(router, ALICE, { resourceSubscriptions: [`file:///${"y".repeat(9_000)}`] });
    expect(long.status).toBe(400);
    expect(long.error?.message).toContain("at most 8192");

    const first = await listen(router, ALICE, { toolsListChanged: true });
    const second = await listen(router, ALICE, { toolsListChanged: true });
    const third = await listen(router, ALICE, { toolsListChanged: true });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(third.status).toBe(429);
    expect(third.error?.message).toContain("'alice'");
    const others = await listen(router, MALLORY, { toolsListChanged: true });
    expect(others.status).toBe(200);
    for (const stream of [first, second, others]) stream.close();
  });

  it("open requests: a principal's calls and streams in flight are bounded; another principal is still served", async () => {
    // Streams closed by the test before are given back as the router sees their connections close.
    const opened = () =>
      eventually(
        async () => {
          const stream = await listen(router, ALICE, { toolsListChanged: true });
          if (stream.status === 200) return stream;
          stream.close();
          return undefined;
        },
        5_000,
        "a listen stream of alice's",
      );
    const streams = [await opened(), await opened()];
    const slow = [0, 1].map(() =>
      modernAs(ALICE, "tools/call", { name: "slow_compute", arguments: { seconds: 3 } }),
    );
    // The two calls are in flight once the router counts four open requests of alice's.
    const refused = await eventually(
      async () => {
        const list = await modernAs(ALICE, "tools/list", {});
        return list.status === 429 ? list : undefined;
      },
      5_000,
      "alice's fifth open request refused",
    );
    expect(refused.body.error?.message).toContain("Too many open requests");
    expect((await modernAs(MALLORY, "tools/list", {})).status).toBe(200);
    for (const stream of streams) stream.close();
    for (const call of await Promise.all(slow))
      expect(JSON.stringify(call.body)).toContain("computed after 3 s");
    // Everything given back: alice is served again.
    await eventually(
      async () => ((await modernAs(ALICE, "tools/list", {})).status === 200 ? true : undefined),
      5_000,
    );
  });

  it("stored tasks: a principal holds a bounded number, MCP and A2A alike; another principal is still served", async () => {
    for (let i = 0; i < 2; i++) {
      const task = await modernAs(
        ALICE,
        "tools/call",
        { name: "slow_compute", arguments: { seconds: 0 } },
        TASKS,
      );
      expect(task.body.result?.resultType).toBe("task");
    }
    const third = await modernAs(
      ALICE,
      "tools/call",
      { name: "slow_compute", arguments: { seconds: 0 } },
      TASKS,
    );
    expect(third.body.error?.message).toContain("Too many tasks: 'alice' holds 2");
    const others = await modernAs(
      MALLORY,
      "tools/call",
      { name: "slow_compute", arguments: { seconds: 0 } },
      TASKS,
    );
    expect(others.body.result?.resultType).toBe("task");

    for (let i = 0; i < 2; i++) {
      expect(
        (await a2a(router, ALICE, "SendMessage", wireToolCallParams("greet", { name: "x" }))).body.result,
      ).toBeDefined();
    }
    const refused = await a2a(router, ALICE, "SendMessage", wireToolCallParams("greet", { name: "x" }));
    expect(refused.body.error?.message).toContain("Too many tasks: 'alice' holds 2");
    expect(
      (await a2a(router, MALLORY, "SendMessage", wireToolCallParams("greet", { name: "y" }))).body.result,
    ).toBeDefined();
  });

  it("a refused A2A message of megabytes is not kept: its task holds only a note of it", async () => {
    const text = "z".repeat(3 * 1024 * 1024);
    const sent = await a2a(router, CAROL, "SendMessage", wireMessageParams([{ text }]));
    const task = sent.body.result?.task as { id: string; status: { state: string } };
    expect(task.status.state).toBe("TASK_STATE_REJECTED");
    const got = await a2a(router, CAROL, "GetTask", { id: task.id });
    expect(got.bytes).toBeLessThan(8 * 1024);
    const listed = await a2a(router, CAROL, "ListTasks", { pageSize: 100 });
    expect(listed.bytes).toBeLessThan(16 * 1024);
  });

  it("tokens configured and no rate set: a principal is rate-limited by default, with Retry-After", async () => {
    const answers = await Promise.all(
      Array.from({ length: 600 }, () =>
        fetch(`${router.url}/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": MODERN_REVISION,
            "mcp-method": "tools/list",
            ...bearer(DAVE),
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/list",
            params: {
              _meta: {
                "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { name: "red-team", version: "1" },
              },
            },
          }),
        }).then(async (r) => {
          await r.arrayBuffer();
          return { status: r.status, retryAfter: r.headers.get("retry-after") };
        }),
      ),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.retryAfter).toMatch(/^\d+$/);
  });

  it("A2A takes only JSON: a text/plain post (a page needs no preflight for it) is refused and starts nothing", async () => {
    const before = await a2a(router, CAROL, "ListTasks", { pageSize: 100 });
    const posted = await a2a(
      router,
      CAROL,
      "SendMessage",
      wireToolCallParams("greet", { name: "page" }),
      "text/plain",
    );
    expect(posted.status).toBe(415);
    const after = await a2a(router, CAROL, "ListTasks", { pageSize: 100 });
    const count = (answer: typeof before) => ((answer.body.result?.tasks ?? []) as unknown[]).length;
    expect(count(after)).toBe(count(before));
  });

  it("SubscribeToTask of an unknown task is a JSON-RPC error, with no stack in the router's log", async () => {
    const lines = router.lines.length;
    const answer = await a2a(router, CAROL, "SubscribeToTask", { id: crypto.randomUUID() });
    expect(answer.status).toBe(200);
    expect(answer.body.error?.code).toBe(-32001);
    expect(router.lines.slice(lines).join("\n")).not.toContain("request failed");
  });

  it("records a secret nested in an object argument nowhere in the call events", async () => {
    await modernAs(CAROL, "tools/call", {
      name: "greet",
      arguments: { name: "n", config: { api_key: NESTED_CANARY } },
    });
    const history = await eventually(
      async () => {
        const events = await api<{ toolName: string; type: string }[]>(
          router.url,
          "GET",
          "/api/v2/tool-calls/history?limit=100",
          undefined,
          admin,
        );
        return events.some((e) => e.toolName === "greet" && e.type === "started") ? events : undefined;
      },
      10_000,
      "the greet call's events",
    );
    expect(JSON.stringify(history)).not.toContain(NESTED_CANARY);
    expect(JSON.stringify(history)).toContain("[REDACTED]");
  });
});

describe("red team: the router's tokens never forwarded to capabilities", () => {
  afterAll(stopAll);

  it("refuses to start with tokens and forwardHeaders naming authorization, saying why", async () => {
    const proc = startNode(trestleCli, ["serve", "--port", "0", "--memory-store"], {
      TRESTLE_TOKENS: JSON.stringify([{ name: "ops", token: ADMIN, scopes: ["admin"] }]),
      TRESTLE_FORWARD_HEADERS: "authorization",
    });
    const code = await new Promise<number | null>((resolve) => proc.child.once("exit", resolve));
    const output = proc.lines.join("\n");
    expect(output).toContain("forwardHeaders: authorization carries the client's token");
    expect(output).not.toContain('"router listening"');
    expect(code).not.toBe(0);
  });
});
