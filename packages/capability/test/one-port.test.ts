import * as net from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { CodeExecutor, ToolInvokeRequestSchema, ToolInvoker } from "@trestle/proto";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CapabilityServer, createCapabilityServer } from "../src/index.js";

describe("one port serves gRPC, gRPC-Web and Connect over HTTP/2 and HTTP/1.1", () => {
  let server: CapabilityServer;
  let baseUrl: string;

  beforeAll(async () => {
    server = createCapabilityServer(createWanakuReferenceCapability().handlers);
    const { host, port } = await server.listen();
    baseUrl = `http://${host}:${port}`;
  });

  afterAll(async () => {
    await server.close();
  });

  const clients: [string, () => Transport][] = [
    ["gRPC over HTTP/2", () => createGrpcTransport({ baseUrl })],
    ["Connect binary over HTTP/2", () => createConnectTransport({ baseUrl, httpVersion: "2" })],
    [
      "Connect JSON over HTTP/1.1",
      () => createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: false }),
    ],
    ["gRPC-Web over HTTP/1.1", () => createGrpcWebTransport({ baseUrl, httpVersion: "1.1" })],
    ["gRPC-Web over HTTP/2", () => createGrpcWebTransport({ baseUrl, httpVersion: "2" })],
  ];

  it.each(clients)("answers a %s client, unary and streaming", async (_name, transport) => {
    const t = transport();
    const reply = await createClient(ToolInvoker, t).invokeTool(
      create(ToolInvokeRequestSchema, { uri: "echo://one-port", body: "hi" }),
      { headers: { "x-wanaku-request-id": "r-1" } },
    );
    const seen = JSON.parse(reply.content[0] ?? "{}");
    expect(seen).toMatchObject({ uri: "echo://one-port", body: "hi", contextRequestId: "r-1" });

    const lines: string[] = [];
    for await (const r of createClient(CodeExecutor, t).executeCode({
      uri: "code-execution-engine://kit/count",
      arguments: { n: "2" },
    })) {
      lines.push(...r.content);
    }
    expect(lines).toEqual(["line 0\n", "line 1\n"]);
  });

  it("answers a service error with its code on every protocol", async () => {
    for (const [name, transport] of clients) {
      const error = await createClient(ToolInvoker, transport())
        .invokeTool({ uri: "fail://NotFound/no%20such%20tool" })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error, name).toBeInstanceOf(ConnectError);
      expect((error as ConnectError).code, name).toBe(Code.NotFound);
      expect((error as ConnectError).rawMessage, name).toBe("no such tool");
    }
  });

  /** Writes the chunks to the server a moment apart and returns the first `bytes` bytes it answers. */
  async function rawExchange(chunks: Buffer[], bytes: number): Promise<Buffer> {
    const url = new URL(baseUrl);
    const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    try {
      await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
      const answer = new Promise<Buffer>((resolve, reject) => {
        let seen = Buffer.alloc(0);
        socket.on("data", (chunk: Buffer) => {
          seen = Buffer.concat([seen, chunk]);
          if (seen.length >= bytes) resolve(seen.subarray(0, bytes));
        });
        socket.once("close", () => reject(new Error(`closed after ${seen.length} bytes`)));
      });
      for (const chunk of chunks) {
        socket.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return await answer;
    } finally {
      socket.destroy();
    }
  }

  it("recognises an HTTP/2 preface that arrives in pieces", async () => {
    const emptySettings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    const frame = await rawExchange(
      [Buffer.from("PRI * HTTP/2.0\r\n"), Buffer.concat([Buffer.from("\r\nSM\r\n\r\n"), emptySettings])],
      9,
    );
    expect(frame[3]).toBe(4); // the server's SETTINGS frame: it took the connection as HTTP/2
  });

  it("recognises an HTTP/1.1 request that arrives in pieces, even one starting like the preface", async () => {
    const status = await rawExchange(
      [Buffer.from("P"), Buffer.from("OST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")],
      12,
    );
    expect(status.toString("latin1")).toMatch(/^HTTP\/1\.1 \d{3}/);
  });
});
