import { create } from "@bufbuild/protobuf";
import { type CapabilityServer, createCapabilityServer } from "@trestle/capability";
import type { ServiceTarget } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import type { WanakuTransport } from "@trestle/wanaku";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConnectTransportOptions, createConnectWanakuTransport } from "../src/index.js";

const request = create(ToolInvokeRequestSchema, { uri: "ok" });

describe("connect transport connection reuse", () => {
  let server: CapabilityServer;
  let target: ServiceTarget;
  let transport: WanakuTransport | undefined;

  beforeEach(async () => {
    server = createCapabilityServer({ toolInvoker: (r) => ({ content: [r.uri] }) });
    const { host, port } = await server.listen();
    target = {
      id: "reuse",
      serviceName: "reuse",
      host,
      port,
      serviceType: "tool-invoker",
      protocol: "connect",
    };
  });

  afterEach(async () => {
    await transport?.close();
    await server.close();
  });

  it.each([
    ["Connect binary over HTTP/2", {}],
    ["Connect JSON over HTTP/1.1", { httpVersion: "1.1", useBinaryFormat: false }],
    ["gRPC-Web over HTTP/2", { protocol: "grpc-web" }],
  ] as [string, ConnectTransportOptions][])(
    "makes 1,000 sequential calls on one TCP connection: %s",
    async (_n, options) => {
      transport = createConnectWanakuTransport(options);
      for (let i = 0; i < 1_000; i++) {
        expect((await transport.invokeTool(request, target)).content).toEqual(["ok"]);
      }
      expect(server.connectionCount()).toBe(1);
    },
  );

  it("multiplexes concurrent calls on one HTTP/2 connection", async () => {
    transport = createConnectWanakuTransport();
    await Promise.all(Array.from({ length: 100 }, () => transport?.invokeTool(request, target)));
    expect(server.connectionCount()).toBe(1);
  });

  it("lets the connection go on release(target), and opens a new one on the next call", async () => {
    transport = createConnectWanakuTransport();
    await transport.invokeTool(request, target);
    transport.release?.(target);
    await transport.invokeTool(request, target);
    expect(server.connectionCount()).toBe(2);
  });

  it("keeps one connection per target address", async () => {
    const other = createCapabilityServer({ toolInvoker: () => ({ content: ["other"] }) });
    const { host, port } = await other.listen();
    try {
      transport = createConnectWanakuTransport();
      const otherTarget = { ...target, id: "other", port, host };
      for (let i = 0; i < 10; i++) {
        expect((await transport.invokeTool(request, target)).content).toEqual(["ok"]);
        expect((await transport.invokeTool(request, otherTarget)).content).toEqual(["other"]);
      }
      expect(server.connectionCount()).toBe(1);
      expect(other.connectionCount()).toBe(1);
    } finally {
      await transport?.close();
      await other.close();
    }
  });
});
