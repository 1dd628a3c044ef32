import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { ToolInvoker } from "@trestle/proto";
import { generateTestCertificates, type TestCertificates } from "@trestle/test-support";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CapabilityServer, createCapabilityServer } from "../src/index.js";

async function echo(transport: Transport): Promise<unknown> {
  const reply = await createClient(ToolInvoker, transport).invokeTool({ uri: "echo://tls", body: "secure" });
  return JSON.parse(reply.content[0] ?? "{}");
}

/**
 * A refused handshake. connect-node reports it as INTERNAL or UNAVAILABLE with the TLS reason, or, under TLS 1.3
 * where the client learns of the refusal only after sending its request, as a stream CANCELED by the peer.
 */
async function refusal(promise: Promise<unknown>, reason: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  expect([Code.Internal, Code.Unavailable, Code.Canceled]).toContain((error as ConnectError).code);
  expect((error as ConnectError).rawMessage).toMatch(reason);
}

describe("TLS", () => {
  let certs: TestCertificates;
  let server: CapabilityServer | undefined;
  /** Tool calls that reached the handler: a refused client must never get there. */
  let served = 0;

  beforeAll(() => {
    certs = generateTestCertificates();
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(requireClientCert: boolean): Promise<string> {
    const reference = createWanakuReferenceCapability().handlers;
    served = 0;
    server = createCapabilityServer({
      ...reference,
      toolInvoker: (request, context) => {
        served++;
        return reference.toolInvoker?.(request, context) ?? { content: [] };
      },
      tls: { cert: certs.serverCert, key: certs.serverKey, ca: certs.ca, requireClientCert },
    });
    const { port } = await server.listen();
    return `https://127.0.0.1:${port}`;
  }

  it("serves gRPC over HTTP/2 and Connect and gRPC-Web over HTTP/1.1 on one TLS port", async () => {
    const baseUrl = await serve(false);
    const http2Options = { ca: certs.ca };
    const http1Options = { ca: certs.ca };
    expect(await echo(createGrpcTransport({ baseUrl, nodeOptions: http2Options }))).toMatchObject({
      body: "secure",
    });
    expect(
      await echo(createConnectTransport({ baseUrl, httpVersion: "2", nodeOptions: http2Options })),
    ).toMatchObject({
      body: "secure",
    });
    expect(
      await echo(createConnectTransport({ baseUrl, httpVersion: "1.1", nodeOptions: http1Options })),
    ).toMatchObject({ body: "secure" });
    expect(
      await echo(createGrpcWebTransport({ baseUrl, httpVersion: "1.1", nodeOptions: http1Options })),
    ).toMatchObject({ body: "secure" });
  });

  it("is refused by a client that does not trust the server's CA", async () => {
    const baseUrl = await serve(false);
    await refusal(echo(createGrpcTransport({ baseUrl, nodeOptions: { ca: certs.otherCa } })), /certificate/i);
  });

  it("under mutual TLS serves a client with a certificate from the CA", async () => {
    const baseUrl = await serve(true);
    const tls = { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey };
    expect(await echo(createGrpcTransport({ baseUrl, nodeOptions: tls }))).toMatchObject({ body: "secure" });
    expect(
      await echo(createConnectTransport({ baseUrl, httpVersion: "1.1", nodeOptions: tls })),
    ).toMatchObject({
      body: "secure",
    });
    expect(served).toBe(2);
  });

  it("under mutual TLS refuses a client without a certificate", async () => {
    const baseUrl = await serve(true);
    await refusal(
      echo(createGrpcTransport({ baseUrl, nodeOptions: { ca: certs.ca } })),
      /certificate required/i,
    );
    await refusal(
      echo(createConnectTransport({ baseUrl, httpVersion: "1.1", nodeOptions: { ca: certs.ca } })),
      /certificate required|socket hang up|ECONNRESET/i,
    );
    expect(served).toBe(0);
  });

  it("under mutual TLS refuses a client whose certificate another CA signed", async () => {
    const baseUrl = await serve(true);
    const rogue = { ca: certs.ca, cert: certs.rogueClientCert, key: certs.rogueClientKey };
    await refusal(
      echo(createGrpcTransport({ baseUrl, nodeOptions: rogue })),
      /unknown ca|certificate|CANCEL/i,
    );
    expect(served).toBe(0);
  });
});
