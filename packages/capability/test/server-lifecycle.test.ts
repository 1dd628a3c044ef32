import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { CodeExecutor, ToolInvoker } from "@trestle/proto";
import { afterEach, describe, expect, it } from "vitest";
import { type CapabilityServer, type CapabilityServerOptions, createCapabilityServer } from "../src/index.js";

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("capability server lifecycle", () => {
  const servers: CapabilityServer[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function start(options: CapabilityServerOptions) {
    const server = createCapabilityServer(options);
    servers.push(server);
    const { host, port } = await server.listen();
    return { server, baseUrl: `http://${host}:${port}`, port };
  }

  it("counts accepted TCP connections: one per client that reuses its connection", async () => {
    const { server, baseUrl } = await start({ toolInvoker: () => ({ content: ["ok"] }) });
    expect(server.connectionCount()).toBe(0);
    const grpc = createClient(ToolInvoker, createGrpcTransport({ baseUrl }));
    for (let i = 0; i < 50; i++) await grpc.invokeTool({});
    expect(server.connectionCount()).toBe(1);
    const http1 = createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "1.1" }));
    await http1.invokeTool({});
    expect(server.connectionCount()).toBe(2);
  });

  it("lets a call in flight finish on close, then stops accepting connections", async () => {
    let started = false;
    const { server, baseUrl } = await start({
      toolInvoker: async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { content: ["finished"] };
      },
    });
    const client = createClient(ToolInvoker, createGrpcTransport({ baseUrl }));
    const call = client.invokeTool({});
    await until(() => started, "the call to start");
    const closed = server.close();
    expect((await call).content).toEqual(["finished"]);
    await closed;
    const refused = await createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "1.1" }))
      .invokeTool({})
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.Unavailable);
  });

  it("cancels calls still running after closeTimeoutMs, and closes within its bound", async () => {
    let aborted = false;
    let started = false;
    const { server, baseUrl } = await start({
      closeTimeoutMs: 200,
      toolInvoker: (_request, context) =>
        new Promise((_resolve, reject) => {
          started = true;
          context.signal.addEventListener("abort", () => {
            aborted = true;
            reject(context.signal.reason);
          });
        }),
    });
    const call = createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "1.1" }))
      .invokeTool({})
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await until(() => started, "the call to start");
    const began = Date.now();
    await server.close();
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(aborted).toBe(true);
    expect(await call).toBeInstanceOf(ConnectError);
  });

  it("cancels gRPC calls still running after closeTimeoutMs with UNAVAILABLE, even if the handler ignores it", async () => {
    let aborted = false;
    let started = 0;
    const { server, baseUrl } = await start({
      closeTimeoutMs: 200,
      toolInvoker: (_request, context) => {
        started++;
        context.signal.addEventListener("abort", () => {
          aborted = true;
        });
        return new Promise(() => undefined);
      },
      async *codeExecutor() {
        started++;
        yield { content: ["first"] };
        await new Promise(() => undefined);
      },
    });
    const transport = createGrpcTransport({ baseUrl });
    const unary = createClient(ToolInvoker, transport)
      .invokeTool({})
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const stream = (async () => {
      const lines: string[] = [];
      try {
        for await (const reply of createClient(CodeExecutor, transport).executeCode({}))
          lines.push(...reply.content);
      } catch (error) {
        return { lines, error };
      }
      return { lines, error: undefined };
    })();
    await until(() => started === 2, "both calls to start");
    const began = Date.now();
    await server.close();
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(aborted).toBe(true);
    const unaryError = (await unary) as ConnectError;
    expect(unaryError).toBeInstanceOf(ConnectError);
    expect(unaryError.code).toBe(Code.Unavailable);
    expect(unaryError.rawMessage).toBe("The capability server is shutting down");
    const streamed = await stream;
    expect(streamed.lines).toEqual(["first"]);
    expect((streamed.error as ConnectError).code).toBe(Code.Unavailable);
  });

  it("closes at once when idle, even with idle HTTP/1.1 and HTTP/2 connections open", async () => {
    const { server, baseUrl } = await start({ toolInvoker: () => ({ content: ["ok"] }) });
    await createClient(ToolInvoker, createGrpcTransport({ baseUrl })).invokeTool({});
    await createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "1.1" })).invokeTool({});
    const began = Date.now();
    await server.close();
    await server.close();
    expect(Date.now() - began).toBeLessThan(1_000);
  });

  it("closes promptly after a call that the client's deadline ended", async () => {
    const { server, baseUrl } = await start({
      toolInvoker: (_request, context) =>
        new Promise((_resolve, reject) =>
          context.signal.addEventListener("abort", () => reject(context.signal.reason)),
        ),
    });
    const outcome = await createClient(ToolInvoker, createGrpcTransport({ baseUrl }))
      .invokeTool({}, { timeoutMs: 100 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((outcome as ConnectError).code).toBe(Code.DeadlineExceeded);
    const began = Date.now();
    await server.close();
    expect(Date.now() - began).toBeLessThan(2_000);
  });

  it("refuses to listen twice, reports a port in use, and closes before listening", async () => {
    const { server, port } = await start({});
    await expect(server.listen()).rejects.toThrow(/already started/);
    const clash = createCapabilityServer({ port });
    await expect(clash.listen()).rejects.toThrow(/EADDRINUSE/);
    await clash.close();
    await createCapabilityServer({}).close();
  });
});
