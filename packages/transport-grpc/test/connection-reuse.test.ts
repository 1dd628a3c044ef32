import { create } from "@bufbuild/protobuf";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import { CodeExecutionRequestSchema, ResourceRequestSchema, ToolInvokeRequestSchema } from "@trestle/proto";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createGrpcWanakuTransport } from "../src/index.js";
import { type ProtoLoaderServer, serveWithProtoLoader } from "./support/proto-loader-server.js";

const echo = (i: number) => create(ToolInvokeRequestSchema, { uri: "echo://n", arguments: { i: String(i) } });

describe("one channel per target", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The reference capability on a proto-loader server that counts its TCP connections. */
  async function countedTarget(): Promise<{ server: ProtoLoaderServer; target: ServiceTarget }> {
    const capability = createWanakuReferenceCapability();
    const server = await serveWithProtoLoader(capability.handlers);
    cleanups.push(() => server.close());
    return { server, target: server.target };
  }

  it("opens exactly one connection for 10,000 sequential calls, counted by the server", async () => {
    const { server, target } = await countedTarget();
    const transport = createGrpcWanakuTransport();
    cleanups.push(() => transport.close());

    for (let i = 0; i < 10_000; i++) {
      const reply = await transport.invokeTool(echo(i), target);
      if (i % 2_500 === 0) expect(JSON.parse(reply.content[0] ?? "{}").arguments.i).toBe(String(i));
    }
    // Every service of the target shares the same channel.
    await transport.acquireResource(create(ResourceRequestSchema, { location: "x" }), target);
    expect((await transport.probeHealth(target)).state).toBe("healthy");
    for await (const _ of transport.executeCode(
      create(CodeExecutionRequestSchema, { uri: "code-execution-engine://kit/count", arguments: { n: "1" } }),
      target,
    ));
    expect(server.accepted).toBe(1);
  }, 60_000);

  it("gives each target address its own connection", async () => {
    const a = await countedTarget();
    const b = await countedTarget();
    const transport = createGrpcWanakuTransport();
    cleanups.push(() => transport.close());
    for (let i = 0; i < 20; i++) {
      await transport.invokeTool(echo(i), a.target);
      await transport.invokeTool(echo(i), b.target);
    }
    expect([a.server.accepted, b.server.accepted]).toEqual([1, 1]);
  });

  it("closes the connection on release(target) and opens a new one for the next call", async () => {
    const { server, target } = await countedTarget();
    const transport = createGrpcWanakuTransport();
    cleanups.push(() => transport.close());
    await transport.invokeTool(echo(1), target);
    expect(server.open).toBe(1);
    transport.release?.(target);
    await server.until((p) => p.open === 0);
    await transport.invokeTool(echo(2), target);
    expect(server.accepted).toBe(2);
  });

  it("lets a call in flight finish when its target is released", async () => {
    const { server, target } = await countedTarget();
    const transport = createGrpcWanakuTransport();
    cleanups.push(() => transport.close());
    const slow = transport.invokeTool(create(ToolInvokeRequestSchema, { uri: "sleep://300" }), target);
    await server.until((p) => p.open === 1);
    transport.release?.(target);
    expect((await slow).content).toEqual(["slept"]);
    await server.until((p) => p.open === 0);
  });

  it("evicts a channel left idle for idleTimeoutMs", async () => {
    const { server, target } = await countedTarget();
    const transport = createGrpcWanakuTransport({ idleTimeoutMs: 150 });
    cleanups.push(() => transport.close());
    await transport.invokeTool(echo(1), target);
    const idleSince = Date.now();
    await server.until((p) => p.open === 0, 3_000);
    expect(Date.now() - idleSince).toBeGreaterThanOrEqual(100);
    await transport.invokeTool(echo(2), target);
    expect(server.accepted).toBe(2);
  });

  it("keeps a channel that is used more often than idleTimeoutMs", async () => {
    const { server, target } = await countedTarget();
    const transport = createGrpcWanakuTransport({ idleTimeoutMs: 750 });
    cleanups.push(() => transport.close());
    const until = Date.now() + 1_200;
    while (Date.now() < until) {
      await transport.invokeTool(echo(1), target);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(server.accepted).toBe(1);
  });

  it("on close(), fails calls in flight with Unavailable and drops the connection", async () => {
    const { server, target } = await countedTarget();
    const transport = createGrpcWanakuTransport();
    const slow = transport.invokeTool(create(ToolInvokeRequestSchema, { uri: "sleep://5000" }), target);
    await server.until((p) => p.open === 1);
    await transport.close();
    const error = await slow.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.Unavailable);
    await server.until((p) => p.open === 0);
  });
});
