import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import type { WanakuTransport } from "@trestle/wanaku";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGrpcWanakuTransport, type GrpcTransportOptions } from "../src/index.js";
import { type ProtoLoaderServer, serveWithProtoLoader } from "./support/proto-loader-server.js";
import { generateTestCertificates, type TestCertificates } from "./support/test-certificates.js";

const echo = create(ToolInvokeRequestSchema, { uri: "echo://tls" });

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  const outcome = await promise.then(
    () => new Error("expected the call to reject, but it resolved"),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(TrestleError);
  return outcome as TrestleError;
}

describe("TLS and mutual TLS", () => {
  let certs: TestCertificates;
  const servers: ProtoLoaderServer[] = [];
  const transports: WanakuTransport[] = [];

  beforeAll(() => {
    certs = generateTestCertificates();
  });

  afterEach(async () => {
    for (const t of transports.splice(0)) await t.close();
    for (const s of servers.splice(0)) await s.close();
  });

  async function serve(
    identity: { cert: string; key: string } | undefined,
    mutual = false,
  ): Promise<ServiceTarget> {
    const credentials = identity
      ? grpc.ServerCredentials.createSsl(
          mutual ? Buffer.from(certs.ca) : null,
          [{ cert_chain: Buffer.from(identity.cert), private_key: Buffer.from(identity.key) }],
          mutual,
        )
      : grpc.ServerCredentials.createInsecure();
    const server = await serveWithProtoLoader(createWanakuReferenceCapability().handlers, {
      credentials,
    });
    servers.push(server);
    return server.target;
  }

  function transport(options: GrpcTransportOptions = {}): WanakuTransport {
    const t = createGrpcWanakuTransport(options);
    transports.push(t);
    return t;
  }

  it("calls a TLS server whose certificate chains to the configured CA", async () => {
    const target = await serve(certs.server);
    const reply = await transport({ tls: { ca: certs.ca } }).invokeTool(echo, target);
    expect(JSON.parse(reply.content[0] ?? "{}").uri).toBe("echo://tls");
  });

  it("verifies the server against serverNameOverride instead of the host", async () => {
    const target = await serve(certs.namedServer);
    const wrongName = await rejection(transport({ tls: { ca: certs.ca } }).invokeTool(echo, target));
    expect(wrongName.code).toBe(Code.Unavailable);
    const reply = await transport({
      tls: { ca: certs.ca, serverNameOverride: "capability.test" },
    }).invokeTool(echo, target);
    expect(reply.content).toHaveLength(1);
  });

  it("refuses a server whose certificate is signed by an untrusted CA", async () => {
    const target = await serve(certs.untrustedServer);
    const error = await rejection(transport({ tls: { ca: certs.ca } }).invokeTool(echo, target));
    expect(error.code).toBe(Code.Unavailable);
  });

  it("cannot speak plaintext to a TLS server", async () => {
    const target = await serve(certs.server);
    const error = await rejection(transport().invokeTool(echo, target, { timeoutMs: 3_000 }));
    expect(error.code).toBe(Code.Unavailable);
  });

  it("calls a mutual-TLS server with a client certificate", async () => {
    const target = await serve(certs.server, true);
    const t = transport({ tls: { ca: certs.ca, cert: certs.client.cert, key: certs.client.key } });
    const reply = await t.invokeTool(echo, target);
    expect(reply.content).toHaveLength(1);
    expect((await t.probeHealth(target)).state).toBe("healthy");
  });

  it("is refused by a mutual-TLS server when it presents no client certificate", async () => {
    const target = await serve(certs.server, true);
    const error = await rejection(transport({ tls: { ca: certs.ca } }).invokeTool(echo, target));
    expect(error.code).toBe(Code.Unavailable);
  });

  it("chooses TLS per target with tlsFor", async () => {
    const plain = await serve(undefined);
    const secure = await serve(certs.server, true);
    const tls = { ca: certs.ca, cert: certs.client.cert, key: certs.client.key };
    const t = transport({ tlsFor: (target) => (target.port === secure.port ? tls : false) });
    expect((await t.invokeTool(echo, plain)).content).toHaveLength(1);
    expect((await t.invokeTool(echo, secure)).content).toHaveLength(1);
  });

  it("rejects a client certificate without its key as InvalidArgument", async () => {
    const target = await serve(certs.server, true);
    const error = await rejection(
      transport({ tls: { ca: certs.ca, cert: certs.client.cert } }).invokeTool(echo, target),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.message).not.toContain("PRIVATE KEY");
  });
});
