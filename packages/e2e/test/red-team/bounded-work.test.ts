import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CapabilityProcess, startCapability } from "../reliability/support/capability.js";
import { serviceHealthyWith } from "../reliability/support/health.js";
import { type McpSession, openMcpSession, postMcp } from "../reliability/support/mcp-session.js";
import { residentBytes } from "../reliability/support/memory.js";
import { api, type RouterProcess, startRouter, stopAll } from "../support/processes.js";

// Red team, issue 15 item 4: one request must not buy unbounded work. Each test is an attack by a client that
// holds only the `mcp` token (or, for the event stream, an operator's slow dashboard) against a real router.

const BODY_LIMIT = 16 * 1024 * 1024;
/** The documented default caps, restated: the tests check the defaults, not a tuned configuration. */
const MAX_BATCH_MESSAGES = 100;
const EVENT_MAX_BYTES = 16 * 1024;
const MAX_RESOURCE_URI_LENGTH = 8 * 1024;

const adminToken = `admin-${randomBytes(16).toString("hex")}`;
const clientToken = `client-${randomBytes(16).toString("hex")}`;
const meteredToken = `metered-${randomBytes(16).toString("hex")}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Milliseconds `/healthz` takes to answer, or Infinity when it does not answer within `timeoutMs`. */
async function healthLatency(url: string, timeoutMs = 2_000): Promise<number> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.text();
    return response.ok ? performance.now() - started : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Opens the tool-call event stream as a client that never reads: the socket is paused as soon as the request is
 * written, so whatever the router sends piles up in the kernel's buffers and then in the router.
 */
function openStalledSubscriber(url: string, token: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        [
          "GET /api/v2/tool-calls/notifications HTTP/1.1",
          `Host: ${hostname}:${port}`,
          "Accept: text/event-stream",
          `Authorization: Bearer ${token}`,
          "",
          "",
        ].join("\r\n"),
      );
      // Wait for the status line, then stop reading for good.
      socket.once("data", (chunk: Buffer) => {
        socket.pause();
        if (!chunk.toString("latin1").startsWith("HTTP/1.1 200")) reject(new Error(chunk.toString("latin1")));
        else resolve(socket);
      });
    });
    socket.once("error", reject);
  });
}

/** Reads what is left on `socket` until it ends or `timeoutMs` passes: whether it ended and the bytes read. */
function drainSocket(socket: Socket, timeoutMs: number): Promise<{ ended: boolean; bytes: number }> {
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      socket.removeAllListeners("data");
      socket.destroy();
      resolve({ ended, bytes });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    socket.once("close", () => finish(true));
    socket.once("end", () => finish(true));
    socket.on("error", () => finish(true));
    socket.resume();
  });
}

describe("red team: bounded work per request", () => {
  let router: RouterProcess;
  let capability: CapabilityProcess;
  let session: McpSession;
  let endpoint: string;
  let sessionHeaders: Record<string, string>;

  beforeAll(async () => {
    router = await startRouter([], {
      // A deployment that accepts large bodies (uploads through tools): the caps below must hold regardless.
      TRESTLE_MAX_BODY_BYTES: String(BODY_LIMIT),
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: adminToken, scopes: ["admin"] },
        { name: "client", token: clientToken, scopes: ["mcp"] },
        {
          name: "metered",
          token: meteredToken,
          scopes: ["mcp"],
          rateLimit: { requestsPerSecond: 5, burst: 20 },
        },
      ]),
    });
    capability = await startCapability({ router: router.url, serviceName: "fast", token: adminToken });
    const admin = bearer(adminToken);
    await api(
      router.url,
      "POST",
      "/api/v1/tools",
      {
        name: "echo",
        description: "echo (red team)",
        uri: "fixture://echo",
        type: "fast",
        inputSchema: { type: "object", properties: {} },
      },
      admin,
    );
    // Two resource templates with two reserved expansions each: the shape a backtracking matcher chokes on.
    for (const [name, location] of [
      ["notes", "notes://{+owner}/{+path}/end"],
      ["drafts", "notes://{+owner}/{+path}.md"],
    ]) {
      await api(router.url, "POST", "/api/v1/resources", { name, location, type: "fast" }, admin);
    }
    await serviceHealthyWith(router.url, "fast", admin);
    endpoint = `${router.url}/mcp`;
    session = await openMcpSession(endpoint, bearer(clientToken));
    sessionHeaders = {
      ...bearer(clientToken),
      "mcp-session-id": session.sessionId,
      "mcp-protocol-version": "2025-03-26",
    };
  }, 120_000);

  afterAll(stopAll);

  it("a batch of 100,000 messages is refused at once with one JSON-RPC error, and the router keeps answering", async () => {
    const batch = `[${Array.from({ length: 100_000 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`).join(",")}]`;
    const started = performance.now();
    const [answer, health] = await Promise.all([
      postMcp(endpoint, batch, sessionHeaders),
      new Promise<number>((resolve) => setTimeout(() => void healthLatency(router.url).then(resolve), 20)),
    ]);
    const elapsed = performance.now() - started;
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text) as { error?: { code: number; message: string } };
    expect(Array.isArray(body)).toBe(false);
    expect(body.error?.code).toBe(-32600);
    expect(body.error?.message).toContain(String(MAX_BATCH_MESSAGES));
    expect(elapsed).toBeLessThan(3_000);
    expect(health).toBeLessThan(1_000);
    expect(await healthLatency(router.url)).toBeLessThan(100);
  });

  it("a batch over the cap dispatches nothing: no call reaches the capability", async () => {
    const before = capability.lines.filter((l) => l.includes('"event":"invoked"')).length;
    const calls = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params: { name: "echo", arguments: { i } },
    }));
    const answer = await postMcp(endpoint, JSON.stringify(calls), sessionHeaders);
    expect(answer.status).toBe(400);
    await new Promise((r) => setTimeout(r, 500));
    expect(capability.lines.filter((l) => l.includes('"event":"invoked"')).length).toBe(before);
  });

  it("each message of a batch counts against the token's rate limit", async () => {
    const metered = await openMcpSession(endpoint, bearer(meteredToken));
    const headers = {
      ...bearer(meteredToken),
      "mcp-session-id": metered.sessionId,
      "mcp-protocol-version": "2025-03-26",
    };
    // 50 pings in one POST against a bucket of 20: one HTTP request, but 50 requests' worth of work.
    const pings = Array.from({ length: 50 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }));
    const answer = await postMcp(endpoint, JSON.stringify(pings), headers);
    expect(answer.status).toBe(429);
    expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("a tool call with a 1 MiB argument leaves a truncated event, with a marker, in the history", async () => {
    const big = "x".repeat(1024 * 1024);
    const call = await session.callTool("echo", { data: big });
    expect(call.status).toBe(200);
    const history = await api<{ type: string; arguments?: { data?: string }; content?: string[] }[]>(
      router.url,
      "GET",
      "/api/v2/tool-calls/history?toolName=echo&limit=2",
      undefined,
      bearer(adminToken),
    );
    const started = history.find((e) => e.type === "started");
    expect(started?.arguments?.data).toMatch(/…\[truncated \d+ bytes\]$/);
    for (const event of history)
      expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThanOrEqual(EVENT_MAX_BYTES);
  });

  it("a subscriber that never reads the event stream is dropped, and the router's memory stays bounded", async () => {
    const subscriber = await openStalledSubscriber(router.url, adminToken);
    const argument = "y".repeat(256 * 1024);
    const round = () =>
      Promise.all(Array.from({ length: 8 }, () => session.callTool("echo", { data: argument })));
    // Ten rounds warm the router up (heap, buffers, compiled code) and fill what is bounded (history, the
    // reader's backlog); from there, memory must stay flat while the calls go on.
    for (let i = 0; i < 10; i++) await round();
    const pid = router.child.pid as number;
    const rssBefore = residentBytes(pid);
    let rssPeak = rssBefore;
    // 240 more calls, two events each that quote the argument: ~120 MiB more of events for a reader that reads none.
    for (let i = 0; i < 30; i++) {
      await round();
      rssPeak = Math.max(rssPeak, residentBytes(pid));
    }
    const drained = await drainSocket(subscriber, 10_000);
    expect(drained.ended).toBe(true);
    expect(router.lines.some((l) => l.includes("dropped a slow SSE reader"))).toBe(true);
    // What the router kept for the reader: once resumed, it reads the kernel's socket buffers (a few MiB) and at
    // most the 1 MiB bound, not the ~150 MiB of events produced.
    expect(drained.bytes).toBeLessThan(24 * 1024 * 1024);
    // The history keeps at most 8 MiB of events and a reader at most 1 MiB unread before it is dropped: what
    // moves is the calls' own transient memory (collected lazily), well below keeping every event for the reader.
    expect(rssPeak - rssBefore).toBeLessThan(160 * 1024 * 1024);
    expect(await healthLatency(router.url)).toBeLessThan(100);
  }, 120_000);

  it("connections beyond maxConnections are closed as they arrive, and served again once others close", async () => {
    const small = await startRouter([], { TRESTLE_MAX_CONNECTIONS: "4" });
    const { hostname, port } = new URL(small.url);
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => resolve(socket));
        socket.once("error", reject);
      });
    // Idle connections that never send a request: the cheapest way to hold a server's sockets.
    const held = [await open(), await open(), await open(), await open()];
    await new Promise((r) => setTimeout(r, 100));
    expect(await healthLatency(small.url, 1_000)).toBe(Number.POSITIVE_INFINITY);
    // The router logs the refusal; its log line reaches this process through a pipe, so wait for it.
    await small.waitForLine(
      (l) => l.includes("connection refused: the router holds as many connections"),
      5_000,
    );
    for (const socket of held) socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await healthLatency(small.url)).toBeLessThan(1_000);
    await small.stop();
  });

  // Last: on a router whose matcher backtracks, this one leaves it stuck for minutes.
  it("a 200,000-character URI against two {+var} templates is refused with -32602 while /healthz answers within 100 ms", async () => {
    const uri = `notes://${"a/".repeat(100_000)}`;
    const read = postMcp(
      endpoint,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri } }),
      sessionHeaders,
      AbortSignal.timeout(5_000),
    ).catch((error: Error) => error);
    await new Promise((r) => setTimeout(r, 30));
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) latencies.push(await healthLatency(router.url));
    const answer = await read;
    expect(Math.max(...latencies)).toBeLessThan(100);
    expect(answer).not.toBeInstanceOf(Error);
    const exchange = answer as Awaited<ReturnType<typeof postMcp>>;
    expect(exchange.answer?.error?.code).toBe(-32602);
    expect(exchange.answer?.error?.message).toContain(String(MAX_RESOURCE_URI_LENGTH));

    // Just under the cap, the matcher runs: it must be linear, so the answer is fast ("not found", no template fits).
    const nearCap = `notes://${"b/".repeat((MAX_RESOURCE_URI_LENGTH - 20) / 2)}`;
    const t0 = performance.now();
    const near = await session.request("resources/read", { uri: nearCap });
    expect(performance.now() - t0).toBeLessThan(500);
    expect(near.answer?.error?.code).toBe(-32002);
  }, 60_000);
});
