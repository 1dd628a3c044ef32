import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { CodeExecutor, HealthProbe, ToolInvokeRequestSchema, ToolInvoker } from "@trestle/proto";
import { CAPABILITY_SECRET_METADATA_KEY } from "@trestle/wanaku";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CapabilityServer, createCapabilityServer } from "../src/index.js";

const SECRET = "s3cret-for-the-router-only";

/** Every protocol the one port serves, each as a connect-es client transport to `baseUrl`. */
const CLIENTS: [string, (baseUrl: string) => Transport][] = [
  // Protobuf gRPC is served by the lean gRPC server, the rest by connect-node: both paths must check the secret.
  ["gRPC over HTTP/2", (baseUrl) => createGrpcTransport({ baseUrl })],
  ["gRPC with JSON over HTTP/2", (baseUrl) => createGrpcTransport({ baseUrl, useBinaryFormat: false })],
  ["Connect binary over HTTP/2", (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "2" })],
  [
    "Connect JSON over HTTP/1.1",
    (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: false }),
  ],
  ["gRPC-Web over HTTP/1.1", (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: "1.1" })],
  ["gRPC-Web over HTTP/2", (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: "2" })],
];

async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

async function drain(stream: AsyncIterable<{ content: string[] }>): Promise<string[]> {
  const lines: string[] = [];
  for await (const reply of stream) lines.push(...reply.content);
  return lines;
}

describe("a capability with a call secret", () => {
  let server: CapabilityServer;
  let baseUrl: string;

  beforeAll(async () => {
    server = createCapabilityServer({ ...createWanakuReferenceCapability().handlers, callSecret: SECRET });
    const { host, port } = await server.listen();
    baseUrl = `http://${host}:${port}`;
  });

  afterAll(async () => {
    await server.close();
  });

  const presented: [string, Record<string, string>][] = [
    ["no secret", {}],
    ["a wrong secret", { [CAPABILITY_SECRET_METADATA_KEY]: "guess" }],
    ["the secret with a suffix", { [CAPABILITY_SECRET_METADATA_KEY]: `${SECRET}x` }],
    ["an empty secret", { [CAPABILITY_SECRET_METADATA_KEY]: "" }],
  ];

  for (const [protocol, transport] of CLIENTS) {
    describe(protocol, () => {
      const client = () => transport(baseUrl);

      it.each(presented)("refuses a tool call with %s, quoting nothing sent", async (_what, headers) => {
        const error = await failure(
          createClient(ToolInvoker, client()).invokeTool(
            create(ToolInvokeRequestSchema, { uri: "echo://refused" }),
            { headers },
          ),
        );
        expect(error.code).toBe(Code.Unauthenticated);
        expect(error.rawMessage).toContain(CAPABILITY_SECRET_METADATA_KEY);
        expect(error.rawMessage).not.toContain("guess");
        expect(error.rawMessage).not.toContain(SECRET);
      });

      it("refuses a code execution stream and a health probe without the secret", async () => {
        const t = client();
        const stream = await failure(
          drain(
            createClient(CodeExecutor, t).executeCode({
              uri: "code-execution-engine://kit/count",
              arguments: { n: "2" },
            }),
          ),
        );
        expect(stream.code).toBe(Code.Unauthenticated);
        const health = await failure(createClient(HealthProbe, t).getStatus({ id: "x" }));
        expect(health.code).toBe(Code.Unauthenticated);
      });

      it("serves a call with the secret, and the handler never sees it", async () => {
        const t = client();
        const headers = { [CAPABILITY_SECRET_METADATA_KEY]: SECRET, "x-tenant": "acme" };
        const reply = await createClient(ToolInvoker, t).invokeTool(
          create(ToolInvokeRequestSchema, { uri: "echo://allowed", body: "hi" }),
          { headers },
        );
        const seen = JSON.parse(reply.content[0] ?? "{}") as { metadata: Record<string, string> };
        expect(seen.metadata["x-tenant"]).toBe("acme");
        expect(seen.metadata).not.toHaveProperty(CAPABILITY_SECRET_METADATA_KEY);
        expect(JSON.stringify(seen)).not.toContain(SECRET);

        const lines = await drain(
          createClient(CodeExecutor, t).executeCode(
            { uri: "code-execution-engine://kit/count", arguments: { n: "2" } },
            { headers },
          ),
        );
        expect(lines).toEqual(["line 0\n", "line 1\n"]);
        await createClient(HealthProbe, t).getStatus({ id: "x" }, { headers });
      });
    });
  }
});

describe("a capability without a call secret", () => {
  it("serves calls that carry none, as before", async () => {
    const server = createCapabilityServer(createWanakuReferenceCapability().handlers);
    try {
      const { host, port } = await server.listen();
      for (const [name, transport] of CLIENTS) {
        const reply = await createClient(ToolInvoker, transport(`http://${host}:${port}`)).invokeTool(
          create(ToolInvokeRequestSchema, { uri: "echo://open" }),
        );
        expect(reply.content[0], name).toContain("echo://open");
      }
    } finally {
      await server.close();
    }
  });

  it("refuses an empty secret as a setting", () => {
    expect(() => createCapabilityServer({ callSecret: "" })).toThrow(/must not be empty/);
  });
});
