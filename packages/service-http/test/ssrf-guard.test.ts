import { Code, isTrestleError, type TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPrivateAddress } from "../src/index.js";
import { rejectionOf, type ServedHttpService, serveHttpService } from "./service-fixture.js";
import { startTestHttpServer, type TestHttpServer } from "./test-http-server.js";

let upstream: TestHttpServer;
let guarded: ServedHttpService;
let allowed: ServedHttpService;
let allowlisted: ServedHttpService;

beforeAll(async () => {
  upstream = await startTestHttpServer();
  [guarded, allowed, allowlisted] = await Promise.all([
    serveHttpService({ timeoutMs: 2_000 }),
    serveHttpService({ allowPrivate: true, timeoutMs: 2_000 }),
    serveHttpService({ allowPrivate: true, allowedHosts: ["127.0.0.1", "*.example.com"], timeoutMs: 2_000 }),
  ]);
});

afterAll(async () => {
  await Promise.all([guarded?.close(), allowed?.close(), allowlisted?.close()]);
  await upstream?.close();
});

describe("the SSRF guard", () => {
  it.each([
    "http://127.0.0.1:PORT/echo",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]:PORT/echo",
    "http://[::ffff:127.0.0.1]:PORT/echo",
    "http://2130706433:PORT/echo",
    "http://0.0.0.0:PORT/echo",
    "http://10.1.2.3/",
    "http://192.168.0.1/",
    "http://[fd00:ec2::254]/",
  ])("refuses %s by default", async (template) => {
    const before = upstream.seen.length;
    const error = await rejectionOf(guarded.invoke({ uri: template.replace("PORT", String(upstream.port)) }));
    expect(isTrestleError(error, Code.PermissionDenied)).toBe(true);
    expect((error as TrestleError).rawMessage).toContain("not allowed");
    expect(upstream.seen.length).toBe(before);
  });

  it("checks the addresses a host name resolves to, not just the name", async () => {
    const error = await rejectionOf(guarded.invoke({ uri: `http://localhost:${upstream.port}/echo` }));
    expect(isTrestleError(error, Code.PermissionDenied)).toBe(true);
    expect((error as TrestleError).rawMessage).toMatch(/localhost \((127\.0\.0\.1|::1)\)/);
  });

  it("lets the local server through only when private addresses are allowed", async () => {
    for (const host of ["127.0.0.1", "localhost"]) {
      const [text] = await allowed.invoke({ uri: `http://${host}:${upstream.port}/echo` });
      expect(JSON.parse(text ?? "")).toMatchObject({ url: "/echo" });
    }
  });

  it("refuses hosts outside the allowlist", async () => {
    const [text] = await allowlisted.invoke({ uri: `http://127.0.0.1:${upstream.port}/echo` });
    expect(JSON.parse(text ?? "")).toMatchObject({ url: "/echo" });
    for (const uri of [`http://localhost:${upstream.port}/echo`, "http://example.com/", "http://evil.com/"]) {
      const error = await rejectionOf(allowlisted.invoke({ uri }));
      expect(isTrestleError(error, Code.PermissionDenied), uri).toBe(true);
      expect((error as TrestleError).rawMessage).toContain("allowed hosts");
    }
  });

  it("classifies addresses", () => {
    for (const address of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "::ffff:10.0.0.1", "0.0.0.0"]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    // Ranges that translate or tunnel to IPv4 (NAT64, 6to4), and the other special-purpose ones.
    for (const address of [
      "64:ff9b::a9fe:a9fe",
      "2002:a9fe:a9fe::1",
      "192.0.0.170",
      "198.18.0.1",
      "fec0::1",
      "::ffff:169.254.169.254",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "172.32.0.1", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});
