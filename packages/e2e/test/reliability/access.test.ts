import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterProcess, startRouter, stopAll } from "../support/processes.js";
import { openMcpSession, postMcp } from "./support/mcp-session.js";
import { observe } from "./support/observations.js";

const TOKENS = {
  admin: "access-admin-0123456789abcdef",
  mcp: "access-mcp-all-0123456789abcdef",
  teamA: "access-mcp-team-a-0123456789ab",
  register: "access-register-0123456789abcd",
};
const ALLOWED_ORIGIN = "https://app.example";
const ALLOWED_HOST = "router.example";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "access", version: "1" } },
});

/** One raw HTTP/1.1 request, so that Host can be anything (or absent). */
function raw(
  url: string,
  options: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string;
    setHost?: boolean;
  },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method,
        path: options.path,
        headers: options.headers,
        setHost: options.setHost ?? true,
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Tokens, namespaces, health endpoints, CORS and Host/Origin checks on a router that requires tokens. */
describe("access control", () => {
  let router: RouterProcess;
  const checked: string[] = [];

  beforeAll(async () => {
    router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "admin", token: TOKENS.admin, scopes: ["admin"] },
        { name: "mcp", token: TOKENS.mcp, scopes: ["mcp"] },
        { name: "team-a", token: TOKENS.teamA, scopes: ["mcp"], namespaces: ["team-a"] },
        { name: "capabilities", token: TOKENS.register, scopes: ["register"] },
      ]),
      TRESTLE_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
      TRESTLE_ALLOWED_HOSTS: ALLOWED_HOST,
    });
    for (const name of ["team-a", "team-b"]) {
      const response = await fetch(`${router.url}/api/v1/namespaces`, {
        method: "POST",
        headers: { ...bearer(TOKENS.admin), "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      expect(response.status).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    observe("access", { checks: checked.length, matrix: checked });
    await stopAll();
  });

  type Who = "none" | "wrong" | "basic" | keyof typeof TOKENS;
  const headersOf = (who: Who): Record<string, string> =>
    who === "none"
      ? {}
      : who === "wrong"
        ? bearer("not-a-token-0123456789abcdef")
        : who === "basic"
          ? { authorization: `Basic ${Buffer.from(`admin:${TOKENS.admin}`).toString("base64")}` }
          : bearer(TOKENS[who]);

  const everyone: Who[] = ["none", "wrong", "basic", "admin", "mcp", "teamA", "register"];

  async function expectStatuses(
    what: string,
    send: (headers: Record<string, string>) => Promise<{ status: number; headers: Headers }>,
    expected: Record<Who, number>,
  ): Promise<void> {
    for (const who of everyone) {
      const { status, headers } = await send(headersOf(who));
      checked.push(`${what} as ${who} → ${status}`);
      expect(status, `${what} as ${who}`).toBe(expected[who]);
      if (status === 401) expect(headers.get("www-authenticate"), `${what} as ${who}`).toMatch(/^Bearer /);
    }
  }

  it("MCP endpoints: 401 without a valid bearer token, 403 for the wrong scope or namespace", async () => {
    const init = (path: string) => (headers: Record<string, string>) =>
      postMcp(`${router.url}${path}`, INITIALIZE, headers);
    // `admin` implies every scope, MCP and every namespace included.
    const deny = { none: 401, wrong: 401, basic: 401, register: 403 } as const;
    await expectStatuses("POST /mcp", init("/mcp"), { ...deny, admin: 200, mcp: 200, teamA: 403 });
    await expectStatuses("POST /team-a/mcp", init("/team-a/mcp"), {
      ...deny,
      admin: 200,
      mcp: 200,
      teamA: 200,
    });
    await expectStatuses("POST /team-b/mcp", init("/team-b/mcp"), {
      ...deny,
      admin: 200,
      mcp: 200,
      teamA: 403,
    });
    const getStream = (headers: Record<string, string>) =>
      fetch(`${router.url}/mcp`, {
        headers: { ...headers, accept: "text/event-stream" },
        signal: AbortSignal.timeout(5_000),
      }).then(async (r) => {
        await r.body?.cancel();
        return r;
      });
    // Without a session a GET is no legacy stream: it answers 405 as the stateless era says, once the token
    // passes; the token check comes first.
    await expectStatuses("GET /mcp", getStream, { ...deny, admin: 405, mcp: 405, teamA: 403 });
  });

  it("a session id is no credential: it needs its token, its namespace, and an intact seal", async () => {
    const session = await openMcpSession(`${router.url}/team-a/mcp`, bearer(TOKENS.teamA));
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const withSession = (headers: Record<string, string>, sessionId = session.sessionId) => ({
      ...headers,
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    });
    expect((await postMcp(`${router.url}/team-a/mcp`, ping, withSession(bearer(TOKENS.teamA)))).status).toBe(
      200,
    );
    expect((await postMcp(`${router.url}/team-a/mcp`, ping, withSession({}))).status).toBe(401);
    // Another principal's token, even one allowed in the namespace, does not open the session: it is unknown.
    expect((await postMcp(`${router.url}/team-a/mcp`, ping, withSession(bearer(TOKENS.admin)))).status).toBe(
      404,
    );
    // The same id in another namespace, with a token that may use it: not that namespace's session.
    const elsewhere = await postMcp(`${router.url}/team-b/mcp`, ping, withSession(bearer(TOKENS.mcp)));
    expect(elsewhere.status).toBe(404);
    // A tampered seal.
    const [payload, seal] = session.sessionId.split(".") as [string, string];
    const tampered = `${payload}.${seal.slice(0, -1)}${seal.endsWith("A") ? "B" : "A"}`;
    expect(
      (await postMcp(`${router.url}/team-a/mcp`, ping, withSession(bearer(TOKENS.teamA), tampered))).status,
    ).toBe(404);
    // A session id made for the default namespace cannot be relabelled for team-a (the claims are sealed).
    const forged = `${Buffer.from(JSON.stringify({ n: "team-a", v: "2025-06-18", r: "x" })).toString("base64url")}.${seal}`;
    expect(
      (await postMcp(`${router.url}/team-a/mcp`, ping, withSession(bearer(TOKENS.teamA), forged))).status,
    ).toBe(404);
  });

  it("management API: admin only, registration paths also for register tokens", async () => {
    const get = (path: string) => (headers: Record<string, string>) =>
      fetch(`${router.url}${path}`, { headers });
    const deny = { none: 401, wrong: 401, basic: 401, mcp: 403, teamA: 403 } as const;
    await expectStatuses("GET /api/v1/tools", get("/api/v1/tools"), { ...deny, admin: 200, register: 403 });
    await expectStatuses("GET /api/v1/capabilities", get("/api/v1/capabilities"), {
      ...deny,
      admin: 200,
      register: 403,
    });
    await expectStatuses("GET /api/v2/tool-calls/history", get("/api/v2/tool-calls/history"), {
      ...deny,
      admin: 200,
      register: 403,
    });
    await expectStatuses("GET /api/openapi.json", get("/api/openapi.json"), {
      ...deny,
      admin: 200,
      register: 403,
    });
    const sse = (headers: Record<string, string>) =>
      fetch(`${router.url}/api/v2/tool-calls/notifications`, { headers }).then(async (r) => {
        await r.body?.cancel();
        return r;
      });
    await expectStatuses("GET /api/v2/tool-calls/notifications", sse, { ...deny, admin: 200, register: 403 });
    // An invalid registration body: a 400 shows the token passed, without registering anything.
    const register = (headers: Record<string, string>) =>
      fetch(`${router.url}/api/v1/management/discovery`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({
          serviceName: "x",
          host: "127.0.0.1",
          port: "not a port",
          serviceType: "tool-invoker",
        }),
      });
    await expectStatuses("POST /api/v1/management/discovery", register, {
      ...deny,
      admin: 400,
      register: 400,
    });
    const heartbeat = (headers: Record<string, string>) =>
      fetch(`${router.url}/api/v1/management/discovery/heartbeats`, {
        method: "POST",
        headers,
        body: "no-such-id",
      });
    await expectStatuses("POST /api/v1/management/discovery/heartbeats", heartbeat, {
      ...deny,
      admin: 404,
      register: 404,
    });
    const create = (headers: Record<string, string>) =>
      fetch(`${router.url}/api/v1/namespaces`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ name: "!" }),
      });
    await expectStatuses("POST /api/v1/namespaces", create, { ...deny, admin: 400, register: 403 });
  });

  it("health endpoints stay public, whatever token or Host is sent", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      for (const who of everyone)
        expect(
          (await fetch(`${router.url}${path}`, { headers: headersOf(who) })).status,
          `${path} ${who}`,
        ).toBe(200);
      expect((await raw(router.url, { method: "GET", path, headers: { host: "evil.example" } })).status).toBe(
        200,
      );
    }
  });

  it("CORS: only configured origins get CORS headers; foreign origins are refused; never a wildcard", async () => {
    const preflight = (origin: string) =>
      fetch(`${router.url}/mcp`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });
    const allowed = await preflight(ALLOWED_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
    expect(allowed.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(allowed.headers.get("access-control-allow-headers")).toContain("mcp-session-id");
    expect(allowed.headers.get("vary")).toContain("Origin");

    for (const origin of [
      "https://evil.example",
      "https://app.example.evil.example",
      "http://app.example",
      "https://app.example:444",
    ]) {
      const refused = await preflight(origin);
      expect(refused.status, origin).toBe(403);
      expect(refused.headers.get("access-control-allow-origin"), origin).toBeNull();
      const post = await postMcp(`${router.url}/mcp`, INITIALIZE, { ...bearer(TOKENS.mcp), origin });
      expect(post.status, origin).toBe(403);
      expect(post.headers.get("access-control-allow-origin"), origin).toBeNull();
      const api = await fetch(`${router.url}/api/v1/tools`, { headers: { ...bearer(TOKENS.admin), origin } });
      expect(api.status, origin).toBe(403);
    }

    const fromApp = await postMcp(`${router.url}/mcp`, INITIALIZE, {
      ...bearer(TOKENS.mcp),
      origin: ALLOWED_ORIGIN,
    });
    expect(fromApp.status).toBe(200);
    expect(fromApp.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
    expect(fromApp.headers.get("access-control-expose-headers")).toContain("mcp-session-id");
    // A loopback origin (a local tool's page) may call, but gets no CORS grant it was not configured for.
    const local = await postMcp(`${router.url}/mcp`, INITIALIZE, {
      ...bearer(TOKENS.mcp),
      origin: "http://localhost:5173",
    });
    expect(local.status).toBe(200);
    expect(local.headers.get("access-control-allow-origin")).toBeNull();
    // Even a refused request answers 401 before anything else leaks: no token, allowed origin.
    expect((await postMcp(`${router.url}/mcp`, INITIALIZE, { origin: ALLOWED_ORIGIN })).status).toBe(401);
  });

  it("Host checks: loopback and configured names pass; any other name, or none, is refused (DNS rebinding)", async () => {
    const mcp = (host: string | undefined) =>
      raw(router.url, {
        method: "POST",
        path: "/mcp",
        headers: {
          ...(host !== undefined ? { host } : {}),
          ...bearer(TOKENS.mcp),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: INITIALIZE,
        setHost: host !== undefined,
      });
    const port = new URL(router.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `${ALLOWED_HOST}:${port}`,
      ALLOWED_HOST.toUpperCase(),
    ])
      expect((await mcp(host)).status, host).toBe(200);
    for (const host of [
      "evil.example",
      `evil.example:${port}`,
      `${ALLOWED_HOST}.evil.example`,
      "127.0.0.1.nip.io",
      "[::2]",
    ])
      expect((await mcp(host)).status, host).toBe(403);
    expect((await mcp(undefined)).status).toBeGreaterThanOrEqual(400);
    const api = await raw(router.url, {
      method: "GET",
      path: "/api/v1/tools",
      headers: { host: "evil.example", ...bearer(TOKENS.admin) },
    });
    expect(api.status).toBe(403);
  });
});
