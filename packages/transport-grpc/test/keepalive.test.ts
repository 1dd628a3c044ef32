import { connect, createServer, type Socket } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, TrestleError } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import { createGrpcWanakuTransport } from "../src/index.js";
import { type ProtoLoaderServer, serveWithProtoLoader } from "./support/proto-loader-server.js";

/**
 * A TCP relay to `port` whose connections can go silent: their bytes stop flowing both ways while they stay
 * open, as behind a host that vanished. Connections made afterwards relay as usual.
 */
async function relayTo(port: number) {
  const sockets: Socket[] = [];
  const silencers: (() => void)[] = [];
  const relay = createServer((client) => {
    const server = connect(port, "127.0.0.1");
    sockets.push(client, server);
    let silent = false;
    silencers.push(() => {
      silent = true;
    });
    client.on("data", (chunk) => {
      if (!silent) server.write(chunk);
    });
    server.on("data", (chunk) => {
      if (!silent) client.write(chunk);
    });
    client.on("error", () => undefined);
    server.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const address = relay.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    goSilent() {
      for (const silence of silencers.splice(0)) silence();
    },
    close() {
      for (const s of sockets) s.destroy();
      relay.close();
    },
  };
}

describe("keepalive of the lean HTTP/2 client", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("closes a connection that went silent mid-call, fails the call with Unavailable long before its deadline, and reconnects", async () => {
    let sleeping = true;
    const server: ProtoLoaderServer = await serveWithProtoLoader({
      async toolInvoker(request, context) {
        if (request.uri === "sleep://" && sleeping)
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
        return { content: ["ok"] };
      },
    });
    cleanups.push(() => server.close());
    const relay = await relayTo(server.target.port);
    cleanups.push(() => relay.close());
    const transport = createGrpcWanakuTransport({ keepalive: { timeMs: 200, timeoutMs: 300 } });
    cleanups.push(() => transport.close());
    const target = { ...server.target, port: relay.port };
    const call = (uri: string, timeoutMs: number) =>
      transport.invokeTool(create(ToolInvokeRequestSchema, { uri }), target, { timeoutMs });

    expect((await call("echo://", 5_000)).content).toEqual(["ok"]);
    const started = Date.now();
    const stuck = call("sleep://", 20_000).then(
      () => new Error("expected the call to fail"),
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    relay.goSilent();
    const error = await stuck;
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.Unavailable);
    // Deadline 20 s: only the unanswered ping (every 200 ms, 300 ms to answer) ends it this early.
    expect(Date.now() - started).toBeLessThan(10_000);
    sleeping = false;
    // The dead connection is gone: the next call opens a new one.
    expect((await call("echo://", 5_000)).content).toEqual(["ok"]);
  }, 30_000);
});
