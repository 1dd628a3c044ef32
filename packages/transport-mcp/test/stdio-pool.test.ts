import { type BridgeTransport, Code, type Progress } from "@trestle/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMcpTransport,
  type McpListChangedEvent,
  type McpTransportOptions,
  type McpUpstream,
  type McpUpstreamLogEvent,
} from "../src/index.js";
import {
  alive,
  eventually,
  fixtureUpstream,
  mcpTarget,
  rejection,
  texts,
  toolCall,
} from "./support/upstreams.js";

/**
 * The lifecycle tests tell processes apart by the pid the server reports and check the host's processes by it: a
 * sandbox gives each server a PID namespace of its own (where every server has the same pid), so their servers run
 * unconfined (`sandbox: false`); test/stdio-sandbox.test.ts checks the lifecycle of sandboxed servers. The tests
 * of cancellation, deadlines, progress and logs run sandboxed, as servers do by default.
 */
function unconfined(args: string[] = [], extra: Parameters<typeof fixtureUpstream>[1] = {}): McpUpstream {
  return fixtureUpstream(args, { sandbox: false, ...extra });
}

describe("MCP transport over stdio: pooling, restarts, per-call mode, cancellation", () => {
  let transport: BridgeTransport | undefined;
  const target = mcpTarget();

  function open(
    upstream: McpUpstream,
    options: Omit<McpTransportOptions, "upstreamFor"> = {},
  ): BridgeTransport {
    transport = createMcpTransport({ upstreamFor: () => upstream, ...options });
    return transport;
  }

  async function pidOf(t: BridgeTransport, on = target): Promise<number> {
    return Number(texts(await t.callTool(toolCall("pid"), on))[0]);
  }

  afterEach(async () => {
    await transport?.close();
    transport = undefined;
  });

  it("serves 100 concurrent calls to one process at once, not one after another", async () => {
    const t = open(unconfined());
    const first = await pidOf(t);
    const started = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 100 }, () => t.callTool(toolCall("sleep", { ms: 200 }), target)),
    );
    const elapsed = Date.now() - started;
    expect(replies.every((r) => texts(r)[0] === "slept")).toBe(true);
    // Serialised, they would take 100 × 200 ms = 20 s.
    expect(elapsed).toBeLessThan(5_000);
    expect(await pidOf(t)).toBe(first);
  });

  it("restarts a server that crashed on the next call, and fails the call it died in", async () => {
    const t = open(unconfined());
    const before = await pidOf(t);
    const error = await rejection(t.callTool(toolCall("crash"), target));
    expect(error.code).toBe(Code.Unavailable);
    expect(error.rawMessage).toBe("The MCP server 'node' exited during the tools/call request");
    const after = await pidOf(t);
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
  });

  it("ends an idle server after the idle timeout and starts it again on the next call", async () => {
    const t = open(unconfined(), { idleTimeoutMs: 150 });
    const before = await pidOf(t);
    await eventually(() => !alive(before));
    const after = await pidOf(t);
    expect(after).not.toBe(before);
  });

  it("keeps a server busy with a call alive past the idle timeout", async () => {
    const t = open(unconfined(), { idleTimeoutMs: 100 });
    const before = await pidOf(t);
    await t.callTool(toolCall("sleep", { ms: 400 }), target);
    // The idle timer starts again only when the last call ends.
    expect(await pidOf(t)).toBe(before);
  });

  it("spawns, calls once and ends a process per call in per-call mode", async () => {
    const t = open(unconfined([], { mode: "per-call" }));
    const [a, b] = await Promise.all([pidOf(t), pidOf(t)]);
    expect(a).not.toBe(b);
    await eventually(() => !alive(a) && !alive(b));
  });

  it("ends the process and any process it started on close()", async () => {
    const t = open(unconfined());
    const server = await pidOf(t);
    const child = Number(texts(await t.callTool(toolCall("spawn_child"), target))[0]);
    expect(alive(child)).toBe(true);
    await t.close();
    expect(alive(server)).toBe(false);
    expect(alive(child)).toBe(false);
  });

  it("ends a target's process on release(target), leaving other targets' processes running", async () => {
    const t = open(unconfined());
    const other = mcpTarget("forward-2");
    const released = await pidOf(t);
    const kept = await pidOf(t, other);
    expect(kept).not.toBe(released);
    t.release?.(target);
    await eventually(() => !alive(released));
    expect(await pidOf(t, other)).toBe(kept);
  });

  it("starts a new process when the forward's command line changes, and ends the old one", async () => {
    let upstream = unconfined(["--one"]);
    transport = createMcpTransport({ upstreamFor: () => upstream });
    const before = await pidOf(transport);
    upstream = unconfined(["--two"]);
    const after = await pidOf(transport);
    expect(after).not.toBe(before);
    await eventually(() => !alive(before));
  });

  it("sends notifications/cancelled upstream when the caller aborts", async () => {
    const t = open(fixtureUpstream());
    await pidOf(t); // started, so that the abort lands on a call in flight, not on the handshake
    const controller = new AbortController();
    const call = t.callTool(toolCall("sleep", { ms: 10_000 }), target, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(call);
    expect(error.code).toBe(Code.Canceled);
    // The fixture counts the calls it saw cancelled; ask it until the notification has been handled.
    let count = "";
    for (const end = Date.now() + 3_000; Date.now() < end && count !== "1"; ) {
      count = texts(await t.callTool(toolCall("cancelled_count"), target))[0] ?? "";
      if (count !== "1") await new Promise((r) => setTimeout(r, 20));
    }
    expect(count).toBe("1");
  });

  it("fails a call past its deadline with DeadlineExceeded naming the method, and cancels it upstream", async () => {
    const t = open(fixtureUpstream());
    const error = await rejection(t.callTool(toolCall("sleep", { ms: 10_000 }), target, { timeoutMs: 150 }));
    expect(error.code).toBe(Code.DeadlineExceeded);
    expect(error.rawMessage).toBe("The MCP server 'node' did not answer tools/call within 150 ms");
  });

  it("passes progress notifications to the call's listeners, and asks for none without a listener", async () => {
    const t = open(fixtureUpstream());
    const progress: Progress[] = [];
    const reply = await t.callTool(toolCall("progress", { steps: 3 }), target, {
      onProgress: (p) => progress.push(p),
    });
    expect(texts(reply)).toEqual(["done"]);
    expect(progress).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
    expect(texts(await t.callTool(toolCall("progress", { steps: 1 }), target))).toEqual(["no token"]);
  });

  it("passes a pooled upstream's logging messages to onLog with the target", async () => {
    const logs: McpUpstreamLogEvent[] = [];
    const t = open(fixtureUpstream(), { onLog: (event) => logs.push(event) });
    await t.callTool(toolCall("log", { message: "hello log" }), target);
    await eventually(() => logs.length > 0);
    expect(logs[0]).toMatchObject({
      target,
      upstream: "'node'",
      message: { level: "info", logger: "fixture", data: "hello log" },
    });
  });

  it("reports list_changed notifications of a pooled connection to onListChanged", async () => {
    const events: McpListChangedEvent[] = [];
    const t = open(fixtureUpstream(), { onListChanged: (event) => events.push(event) });
    await t.callTool(toolCall("add_tool", { name: "new_one" }), target);
    await eventually(() => events.length > 0);
    expect(events[0]).toEqual({ target, upstream: "'node'", kind: "tools" });
  });

  it("passes a per-call upstream's logging messages to that call's listener", async () => {
    const transportLogs: unknown[] = [];
    const t = open(fixtureUpstream([], { mode: "per-call" }), {
      onLog: (event) => transportLogs.push(event),
    });
    const callLogs: unknown[] = [];
    await t.callTool(toolCall("log", { message: "mine" }), target, {
      onLog: (message) => callLogs.push(message.data),
    });
    expect(callLogs).toEqual(["mine"]);
    expect(transportLogs).toEqual([]);
  });
});
