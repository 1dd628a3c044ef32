import { describe, expect, it } from "vitest";
import { channelSecurity } from "./channel-security.js";

describe("channelSecurity", () => {
  it("is plaintext without TLS settings", () => {
    expect(channelSecurity(undefined).identity).toBe("plaintext");
    expect(channelSecurity(false).identity).toBe("plaintext");
  });

  it("gives equal settings one identity, whatever object holds them, and different settings another", () => {
    const a = channelSecurity({ ca: "CA", serverNameOverride: "x" });
    expect(channelSecurity({ ca: Buffer.from("CA"), serverNameOverride: "x" }).identity).toBe(a.identity);
    expect(channelSecurity({ ca: "CA", serverNameOverride: "y" }).identity).not.toBe(a.identity);
    expect(channelSecurity({ ca: "C", cert: "A" }).identity).not.toBe(channelSecurity({ ca: "CA" }).identity);
  });

  it("keeps key material out of the identity", () => {
    const identity = channelSecurity({ cert: "CERT", key: "-----BEGIN PRIVATE KEY----- secret" }).identity;
    expect(identity).toMatch(/^tls:[0-9a-f]{64}$/);
  });

  it("sets the server name override as target name and authority", () => {
    expect(channelSecurity({ serverNameOverride: "svc.test" }).channelOptions).toEqual({
      "grpc.ssl_target_name_override": "svc.test",
      "grpc.default_authority": "svc.test",
    });
  });
});
