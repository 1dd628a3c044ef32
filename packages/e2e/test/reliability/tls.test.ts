import { type CertificateSet, createCertificateSet } from "@trestle/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type RouterProcess, serviceHealthy, startRouter, stopAll } from "../support/processes.js";
import { type CapabilityOptions, type CapabilityProcess, startCapability } from "./support/capability.js";
import { type McpSession, openMcpSession, resultText } from "./support/mcp-session.js";
import { observe } from "./support/observations.js";

const tool = (name: string, type: string) => ({
  name,
  description: `${name} (reliability suite)`,
  uri: "fixture://echo",
  type,
  inputSchema: { type: "object", properties: {} },
});

/**
 * Mutual TLS between the router and capability services: the router trusts one CA and presents a client
 * certificate from it. A capability whose certificate it does not trust, or that does not trust the router's
 * certificate, never sees a call.
 */
describe("TLS between the router and capability services", () => {
  let certificates: CertificateSet;
  let router: RouterProcess;
  let session: McpSession;
  const refusedServices: Record<string, CapabilityProcess> = {};

  beforeAll(async () => {
    certificates = await createCertificateSet();
    const trustedCa = await certificates.authority("trusted-ca");
    const otherCa = await certificates.authority("other-ca");
    const routerClient = await certificates.leaf("router-client", trustedCa);
    const trustedServer = await certificates.leaf("trusted-server", trustedCa);
    const untrustedServer = await certificates.leaf("untrusted-server", otherCa);
    const selfSigned = await certificates.leaf("self-signed");

    router = await startRouter([
      "--tls-ca",
      trustedCa.cert,
      "--tls-cert",
      routerClient.cert,
      "--tls-key",
      routerClient.key,
    ]);
    const mtls = (cert: { cert: string; key: string }, clientCa: string): Partial<CapabilityOptions> => ({
      tlsCert: cert.cert,
      tlsKey: cert.key,
      tlsCa: clientCa,
      requireClientCert: true,
    });
    const refused: [string, Partial<CapabilityOptions>][] = [
      ["untrusted", mtls(untrustedServer, trustedCa.cert)],
      ["self-signed", mtls(selfSigned, trustedCa.cert)],
      // Its certificate is trusted, but it trusts only the other CA's clients: the router's certificate is refused.
      ["picky", mtls(trustedServer, otherCa.cert)],
      ["cleartext", {}],
    ];
    const started = await Promise.all([
      startCapability({
        router: router.url,
        serviceName: "trusted-grpc",
        protocol: "grpc",
        ...mtls(trustedServer, trustedCa.cert),
      }),
      startCapability({
        router: router.url,
        serviceName: "trusted-connect",
        protocol: "connect",
        ...mtls(trustedServer, trustedCa.cert),
      }),
      ...refused.map(([name, options]) =>
        startCapability({ router: router.url, serviceName: name, ...options }),
      ),
    ]);
    refused.forEach(([name], i) => {
      refusedServices[name] = started[i + 2] as CapabilityProcess;
    });
    for (const name of ["trusted-grpc", "trusted-connect", ...Object.keys(refusedServices)])
      await api(router.url, "POST", "/api/v1/tools", tool(`${name}_echo`.replace("-", "_"), name));
    await serviceHealthy(router.url, "trusted-grpc");
    await serviceHealthy(router.url, "trusted-connect");
    session = await openMcpSession(`${router.url}/mcp`);
  }, 120_000);

  afterAll(async () => {
    await stopAll();
    await certificates?.remove();
  });

  it("calls reach a capability whose certificate the router trusts, over gRPC and Connect, with mutual TLS", async () => {
    for (const name of ["trusted_grpc_echo", "trusted_connect_echo"]) {
      const exchange = await session.callTool(name, { over: "tls" });
      expect(exchange.answer?.result?.isError, resultText(exchange)).toBeFalsy();
      expect(JSON.parse(resultText(exchange)).arguments).toEqual({ over: "tls" });
    }
  }, 120_000);

  it("a capability with an untrusted certificate, or one that refuses the router's, is refused and never called", async () => {
    const messages: Record<string, string> = {};
    for (const name of Object.keys(refusedServices)) {
      const exchange = await session.callTool(`${name}_echo`.replace("-", "_"), { secret: "never sent" });
      expect(exchange.answer?.result?.isError, name).toBe(true);
      messages[name] = resultText(exchange);
      // Registered but refused: unavailable, with the reason, never "not registered" (finding 1, fixed).
      expect(messages[name], name).toMatch(
        new RegExp(`^The capability service '${name}'( at [^ ]+)? is unavailable`),
      );
    }
    const services = await api<{ health: string; target: { serviceName: string } }[]>(
      router.url,
      "GET",
      "/api/v1/capabilities",
    );
    const health = Object.fromEntries(services.map((s) => [s.target.serviceName, s.health]));
    for (const name of Object.keys(refusedServices)) {
      expect(health[name], name).not.toBe("healthy");
      const invoked = (refusedServices[name] as CapabilityProcess).lines.filter((l) =>
        l.includes('"event":"invoked"'),
      );
      expect(invoked, name).toEqual([]);
    }
    observe("tls", { refusedMessages: messages, health });
  }, 120_000);
});
