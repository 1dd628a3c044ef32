import { create } from "@bufbuild/protobuf";
import { type CapabilityServer, createCapabilityServer } from "@trestle/capability";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import { ToolInvokeRequestSchema } from "@trestle/proto";
import { generateTestCertificates, type TestCertificates } from "@trestle/test-support";
import { createWanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConnectTransportOptions, createConnectWanakuTransport } from "../src/index.js";

const request = create(ToolInvokeRequestSchema, { uri: "echo://tls", body: "over tls" });

describe("connect transport over TLS", () => {
  let certs: TestCertificates;
  let server: CapabilityServer | undefined;

  beforeAll(() => {
    certs = generateTestCertificates();
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(requireClientCert: boolean): Promise<ServiceTarget> {
    server = createCapabilityServer({
      ...createWanakuReferenceCapability().handlers,
      tls: { cert: certs.serverCert, key: certs.serverKey, ca: certs.ca, requireClientCert },
    });
    const { host, port } = await server.listen();
    return { id: "tls", serviceName: "tls", host, port, serviceType: "tool-invoker", protocol: "connect" };
  }

  async function echo(options: ConnectTransportOptions, target: ServiceTarget): Promise<unknown> {
    const transport = createConnectWanakuTransport(options);
    try {
      const reply = await transport.invokeTool(request, target);
      return JSON.parse(reply.content[0] ?? "{}");
    } finally {
      await transport.close();
    }
  }

  async function failure(options: ConnectTransportOptions, target: ServiceTarget): Promise<TrestleError> {
    const error = await echo(options, target).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TrestleError);
    return error as TrestleError;
  }

  it.each([
    ["Connect over HTTP/2", { httpVersion: "2" }],
    ["Connect JSON over HTTP/1.1", { httpVersion: "1.1", useBinaryFormat: false }],
    ["gRPC-Web over HTTP/1.1", { httpVersion: "1.1", protocol: "grpc-web" }],
  ] as const)("calls a TLS service trusting its CA: %s", async (_name, options) => {
    const target = await serve(false);
    expect(await echo({ ...options, tls: { ca: certs.ca } }, target)).toMatchObject({ body: "over tls" });
  });

  it("takes TLS settings per target, and refuses a server whose CA it does not trust as unavailable", async () => {
    const target = await serve(false);
    const chosen = (t: ServiceTarget) => (t.port === target.port ? { ca: certs.ca } : undefined);
    expect(await echo({ tls: chosen }, target)).toMatchObject({ body: "over tls" });
    const error = await failure({ tls: { ca: certs.otherCa } }, target);
    expect(error.code).toBe(Code.Unavailable);
    expect(error.rawMessage).toMatch(/certificate/i);
  });

  it.each([
    ["HTTP/2", "2"],
    ["HTTP/1.1", "1.1"],
  ] as const)(
    "under mutual TLS calls with a client certificate and is refused without one: %s",
    async (_n, httpVersion) => {
      const target = await serve(true);
      const withCert = { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey };
      expect(await echo({ httpVersion, tls: withCert }, target)).toMatchObject({ body: "over tls" });
      const refused = await failure({ httpVersion, tls: { ca: certs.ca } }, target);
      expect(refused.code).toBe(Code.Unavailable);
      const rogue = await failure(
        { httpVersion, tls: { ca: certs.ca, cert: certs.rogueClientCert, key: certs.rogueClientKey } },
        target,
      );
      expect(rogue.code).toBe(Code.Unavailable);
    },
  );
});
