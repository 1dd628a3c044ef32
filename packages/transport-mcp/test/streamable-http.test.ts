import { type BridgeTransport, Code, type InputResponse, type Progress } from "@trestle/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMcpTransport } from "../src/index.js";
import {
  freePort,
  mcpTarget,
  type RunningServer,
  rejection,
  startEverythingHttp,
  startFixtureHttp,
  texts,
  toolCall,
} from "./support/upstreams.js";

async function sessionCount(server: RunningServer): Promise<number> {
  return Number(await (await fetch(`http://127.0.0.1:${server.port}/session-count`)).text());
}

describe("MCP transport over Streamable HTTP (fixture server)", () => {
  let server: RunningServer;
  let transport: BridgeTransport;
  const target = mcpTarget();

  beforeAll(async () => {
    server = await startFixtureHttp();
  });
  afterAll(async () => {
    await server.stop();
  });
  afterEach(async () => {
    await transport?.close();
  });

  it("calls tools with typed arguments on one session, concurrently", async () => {
    transport = createMcpTransport({ upstreamFor: () => server.upstream });
    const reply = await transport.callTool(toolCall("describe_args", { n: 2, ok: true }), target);
    expect(JSON.parse(texts(reply)[0] ?? "").types).toEqual({ n: "number", ok: "boolean" });
    const started = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => transport.callTool(toolCall("sleep", { ms: 200 }), target)),
    );
    expect(replies.every((r) => texts(r)[0] === "slept")).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await sessionCount(server)).toBe(1);
  });

  it("initialises a new session when the server forgets it (404), and the call still succeeds", async () => {
    transport = createMcpTransport({ upstreamFor: () => server.upstream });
    await transport.callTool(toolCall("echo", { text: "before" }), target);
    await fetch(`http://127.0.0.1:${server.port}/forget-sessions`);
    expect(await sessionCount(server)).toBe(0);
    const reply = await transport.callTool(toolCall("echo", { text: "after" }), target);
    expect(texts(reply)).toEqual(["after"]);
    expect(await sessionCount(server)).toBe(1);
  });

  it("ends its session on close()", async () => {
    transport = createMcpTransport({ upstreamFor: () => server.upstream });
    await transport.callTool(toolCall("echo", { text: "x" }), target);
    expect(await sessionCount(server)).toBe(1);
    await transport.close();
    expect(await sessionCount(server)).toBe(0);
  });

  it("passes progress through and cancels upstream over HTTP", async () => {
    transport = createMcpTransport({ upstreamFor: () => server.upstream });
    const progress: Progress[] = [];
    await transport.callTool(toolCall("progress", { steps: 2 }), target, {
      onProgress: (p) => progress.push(p),
    });
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    const controller = new AbortController();
    const call = transport.callTool(toolCall("sleep", { ms: 10_000 }), target, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    expect((await rejection(call)).code).toBe(Code.Canceled);
    let count = "";
    for (const end = Date.now() + 3_000; Date.now() < end && count !== "1"; ) {
      count = texts(await transport.callTool(toolCall("cancelled_count"), target))[0] ?? "";
      if (count !== "1") await new Promise((r) => setTimeout(r, 20));
    }
    expect(count).toBe("1");
  });
  it("hands each upstream request for input to the call whose SSE stream carried it, with calls in flight side by side", async () => {
    transport = createMcpTransport({ upstreamFor: () => server.upstream });
    const ask = (name: string) =>
      transport.callTool(toolCall("ask"), target, {
        onInputRequest: async (request): Promise<InputResponse> =>
          request.kind === "elicitation"
            ? { action: "accept", result: { name } }
            : { action: "accept", result: { roots: [] } },
      });
    const replies = await Promise.all(["Ada", "Grace", "Edsger"].map(ask));
    expect(replies.map((reply) => JSON.parse(texts(reply)[0] ?? "").answer.content.name)).toEqual([
      "Ada",
      "Grace",
      "Edsger",
    ]);
  });
});

describe("MCP transport against @modelcontextprotocol/server-everything over Streamable HTTP", () => {
  let server: RunningServer;
  let transport: BridgeTransport;
  const target = mcpTarget("everything", "everything");

  beforeAll(async () => {
    server = await startEverythingHttp(await freePort());
    transport = createMcpTransport({ upstreamFor: () => server.upstream });
  });
  afterAll(async () => {
    await transport.close();
    await server.stop();
  });

  it("calls tools with typed arguments and returns images as image blocks", async () => {
    const sum = await transport.callTool(toolCall("get-sum", { a: 2, b: 40 }), target);
    expect(texts(sum).join(" ")).toContain("42");
    const image = await transport.callTool(toolCall("get-tiny-image"), target);
    expect(image.content.some((block) => block.type === "image" && block.mimeType === "image/png")).toBe(
      true,
    );
  });

  it("re-initialises after the server restarts and forgets the session", async () => {
    await transport.callTool(toolCall("echo", { message: "one" }), target);
    await server.stop();
    server = await startEverythingHttp(server.port);
    const reply = await transport.callTool(toolCall("echo", { message: "two" }), target);
    expect(texts(reply)).toEqual(["Echo: two"]);
  });
});
