import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterConfigInput, resolveConfig } from "../src/config.js";
import { serveMetrics } from "../src/http/metrics-route.js";
import type { TokenAuthenticator } from "../src/http/security.js";
import { createTelemetryModule } from "../src/root/telemetry.js";
import { createRouter, type Router } from "../src/router.js";

const ADMIN = "metrics-admin-token-0123456789abcdef";
const MCP_ONLY = "metrics-mcp-token-0123456789abcdefgh";
const TOKENS: { name: string; token: string; scopes: ("admin" | "mcp")[] }[] = [
  { name: "ops", token: ADMIN, scopes: ["admin"] },
  { name: "agent", token: MCP_ONLY, scopes: ["mcp"] },
];

function start(file: RouterConfigInput & Record<string, unknown>): Promise<Router> {
  return createRouter(
    resolveConfig({
      env: {},
      file: { drainTimeoutMs: 200, ...file },
      flags: { host: "127.0.0.1", port: "0", memoryStore: true, logLevel: "silent" },
    }),
  );
}

const get = (router: Router, token?: string) =>
  fetch(`${router.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe("GET /metrics", () => {
  let router: Router;
  beforeAll(async () => {
    router = await start({ tokens: TOKENS });
  }, 60_000);
  afterAll(async () => {
    await router?.close();
  });

  it("needs the admin scope: no token is 401, an mcp-only token 403", async () => {
    expect((await get(router)).status).toBe(401);
    const refused = await get(router, MCP_ONLY);
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain("trestle_");
  });

  it("serves the Prometheus text of the router's state and MCP requests to an admin", async () => {
    const registered = await fetch(`${router.url}/api/v1/management/discovery`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({
        serviceName: "weather",
        host: "127.0.0.1",
        port: 9,
        serviceType: "tool-invoker",
      }),
    });
    expect(registered.status).toBe(200);
    const initialize = await fetch(`${router.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${MCP_ONLY}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(initialize.status).toBe(200);
    await initialize.text();

    const response = await get(router, ADMIN);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain("trestle_mcp_sessions 1");
    expect(text).toMatch(
      /trestle_service_circuit_state\{service="weather",instance="[^"]+",state="closed"\} 1/,
    );
    expect(text).toContain(
      'mcp_server_operation_duration_seconds_count{mcp_method_name="initialize",namespace="",principal_class="static",error_type=""} 1',
    );
    // A principal's name is never a label value.
    expect(text).not.toMatch(/="agent"/);
  });
});

describe("the metrics setting", () => {
  const config = (metrics: unknown) =>
    resolveConfig({ env: {}, file: { tokens: TOKENS, metrics }, flags: { memoryStore: true } });

  it("is behind the admin scope by default, open with {open: true}, and off with false", () => {
    expect(createTelemetryModule(config(undefined)).endpoint?.open).toBe(false);
    expect(createTelemetryModule(config({ open: true })).endpoint?.open).toBe(true);
    const off = createTelemetryModule(config(false));
    expect(off.endpoint).toBeUndefined();
    expect(off.interceptors).toEqual({});
  });

  it("refuses anything but {open: boolean} or false", () => {
    expect(() => config({ open: "yes" })).toThrow(/metrics/);
    expect(() => config({ public: true })).toThrow(/metrics/);
  });

  it("serves open metrics without asking the authenticator", async () => {
    const refuseAll = {
      authenticate: async () => ({ ok: false, status: 401, message: "no" }),
    } as unknown as TokenAuthenticator;
    const server = createServer((req, res) => {
      void serveMetrics(
        req,
        res,
        { open: req.url === "/open", render: async () => ({ contentType: "text/plain", body: "m 1\n" }) },
        { auth: refuseAll },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const open = await fetch(`http://127.0.0.1:${port}/open`);
      expect(open.status).toBe(200);
      expect(await open.text()).toBe("m 1\n");
      expect((await fetch(`http://127.0.0.1:${port}/closed`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/open`, { method: "POST" })).status).toBe(405);
    } finally {
      server.close();
    }
  });
});
