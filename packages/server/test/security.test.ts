import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { builtinEnvironment } from "../src/builtin-services.js";
import { resolveConfig } from "../src/config.js";
import {
  type AccessToken,
  checkListenAddress,
  createOriginGuard,
  createTokenAuthenticator,
  isLoopbackHost,
} from "../src/http/security.js";
import { classifyMessage } from "../src/mcp/json-rpc.js";
import { createSessionRegistry } from "../src/mcp/session-registry.js";

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe("origin guard", () => {
  const guard = createOriginGuard({ allowedHosts: [], allowedOrigins: ["https://app.example"] });

  it("refuses Origin: null, which a sandboxed page sends without a preflight", () => {
    expect(guard.check(request({ host: "127.0.0.1:8080", origin: "null" }))).toContain("not allowed");
  });

  it("accepts loopback and configured origins and refuses others", () => {
    expect(guard.check(request({ host: "localhost:8080", origin: "http://localhost:3000" }))).toBeUndefined();
    expect(guard.check(request({ host: "localhost:8080", origin: "https://app.example" }))).toBeUndefined();
    expect(guard.check(request({ host: "localhost:8080", origin: "https://evil.example" }))).toContain(
      "not allowed",
    );
    expect(guard.check(request({ host: "evil.example" }))).toContain("not allowed");
  });

  it("accepts a page the router served calling back on its own origin, for a host allowed by name", () => {
    // The admin UI at https://router.example/ui posts to https://router.example/api: same origin.
    const named = createOriginGuard({ allowedHosts: ["router.example"], allowedOrigins: [] });
    expect(
      named.check(request({ host: "router.example", origin: "https://router.example" })),
    ).toBeUndefined();
    expect(
      named.check(request({ host: "router.example:8443", origin: "https://router.example:8443" })),
    ).toBeUndefined();
    // Another port or another host is another origin.
    expect(named.check(request({ host: "router.example", origin: "https://router.example:8443" }))).toContain(
      "not allowed",
    );
    expect(named.check(request({ host: "router.example", origin: "https://evil.example" }))).toContain(
      "not allowed",
    );
  });

  it("does not take Origin = Host as same-origin when any host is allowed (DNS rebinding)", () => {
    // With `*`, a rebinding page at evil.example sends Host and Origin both naming evil.example.
    const anyHost = createOriginGuard({ allowedHosts: ["*"], allowedOrigins: [] });
    expect(
      anyHost.check(request({ host: "evil.example:8080", origin: "http://evil.example:8080" })),
    ).toContain("not allowed");
  });
});

describe("JSON-RPC classification", () => {
  it.each([true, [], "x", { progressToken: {} }])(
    "refuses a malformed _meta (%j) instead of letting it go unanswered",
    (meta) => {
      expect(
        classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: meta } }),
      ).toHaveProperty("error");
    },
  );

  it("accepts a well-formed _meta", () => {
    expect(
      classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: 7 } } }),
    ).toEqual({
      kind: "request",
    });
  });
});

const withToken = (token?: string) =>
  request(token === undefined ? {} : { authorization: `Bearer ${token}` });
const ADMIN: AccessToken = { name: "operator", token: "admin-token-0123456789", scopes: ["admin"] };
const CLIENT: AccessToken = { name: "client", token: "mcp-token-0123456789ab", scopes: ["mcp"] };
const TEAM: AccessToken = {
  name: "team",
  token: "team-token-0123456789a",
  scopes: ["mcp"],
  namespaces: ["team-a"],
};
const BUILTINS: AccessToken = {
  name: "trestle-builtins",
  token: "builtin-token-01234567",
  scopes: ["register"],
};

describe("token rules", () => {
  it("with only an admin token, every scope is closed to a caller without one", () => {
    const auth = createTokenAuthenticator([ADMIN]);
    for (const scope of ["mcp", "register", "admin"] as const) {
      expect(auth.check(withToken(), scope)).toMatchObject({ ok: false, status: 401 });
      expect(auth.check(withToken("wrong-token-0123456789"), scope)).toMatchObject({
        ok: false,
        status: 401,
      });
    }
  });

  it("admin implies every scope and every namespace", () => {
    const auth = createTokenAuthenticator([ADMIN, TEAM]);
    for (const scope of ["mcp", "register", "admin"] as const) {
      expect(auth.check(withToken(ADMIN.token), scope)).toMatchObject({
        ok: true,
        principal: { name: "operator" },
      });
    }
    expect(auth.check(withToken(ADMIN.token), "mcp", "anything")).toMatchObject({ ok: true });
  });

  it("a scope needs a token that holds it, and a namespace list restricts MCP", () => {
    const auth = createTokenAuthenticator([CLIENT, TEAM, BUILTINS]);
    expect(auth.check(withToken(CLIENT.token), "admin")).toMatchObject({ ok: false, status: 403 });
    expect(auth.check(withToken(CLIENT.token), "register")).toMatchObject({ ok: false, status: 403 });
    expect(auth.check(withToken(BUILTINS.token), "register")).toMatchObject({ ok: true });
    expect(auth.check(withToken(BUILTINS.token), "mcp")).toMatchObject({ ok: false, status: 403 });
    expect(auth.check(withToken(TEAM.token), "mcp", "team-a")).toMatchObject({ ok: true });
    // The refusal for another namespace does not depend on (nor name) the namespace: no enumeration.
    const b = auth.check(withToken(TEAM.token), "mcp", "team-b");
    const unknown = auth.check(withToken(TEAM.token), "mcp", "no-such-namespace");
    expect(b).toMatchObject({ ok: false, status: 403 });
    expect(unknown).toEqual(b);
  });

  it("with no tokens every scope is open; a known internal token still names its principal, and does not close anything", () => {
    const auth = createTokenAuthenticator([], { internalTokens: [BUILTINS] });
    expect(auth.closed).toBe(false);
    for (const scope of ["mcp", "register", "admin"] as const) {
      expect(auth.check(withToken(), scope)).toEqual({ ok: true, principal: undefined });
    }
    expect(auth.check(withToken(BUILTINS.token), "register")).toMatchObject({
      ok: true,
      principal: { name: "trestle-builtins" },
    });
    // The internal token does not reach beyond its scope, even on an open router: there it is just anonymous.
    expect(auth.check(withToken(BUILTINS.token), "admin")).toEqual({ ok: true, principal: undefined });
    expect(createTokenAuthenticator([CLIENT], { internalTokens: [BUILTINS] }).closed).toBe(true);
  });
});

describe("listening without tokens", () => {
  it.each(["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])("allows loopback %s", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
    expect(checkListenAddress({ host, tokenCount: 0, insecureOpen: false })).toEqual({
      ok: true,
      openOnNetwork: false,
    });
  });

  it.each(["0.0.0.0", "::", "192.168.1.10", "10.0.0.5", "router.example", "::ffff:10.0.0.1"])(
    "refuses %s, saying how to fix it, unless insecureOpen",
    (host) => {
      const refused = checkListenAddress({ host, tokenCount: 0, insecureOpen: false });
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.message).toContain("--insecure-open");
        expect(refused.message).toContain("TRESTLE_TOKENS");
      }
      expect(checkListenAddress({ host, tokenCount: 0, insecureOpen: true })).toEqual({
        ok: true,
        openOnNetwork: true,
      });
      expect(checkListenAddress({ host, tokenCount: 1, insecureOpen: false })).toEqual({
        ok: true,
        openOnNetwork: false,
      });
    },
  );

  it("reads insecureOpen from the flag, TRESTLE_INSECURE_OPEN or the config file", () => {
    expect(resolveConfig({}).insecureOpen).toBe(false);
    expect(resolveConfig({ env: { TRESTLE_INSECURE_OPEN: "1" } }).insecureOpen).toBe(true);
    expect(resolveConfig({ file: { insecureOpen: true } }).insecureOpen).toBe(true);
    expect(resolveConfig({ flags: { insecureOpen: true } }).insecureOpen).toBe(true);
  });

  it("refuses a configured token named like the built-ins' credential, or two tokens with one name", () => {
    expect(() => resolveConfig({ file: { tokens: [{ ...BUILTINS }] } })).toThrow(/reserved/);
    expect(() => resolveConfig({ file: { tokens: [ADMIN, { ...CLIENT, name: "operator" }] } })).toThrow(
      /unique/,
    );
  });
});

describe("built-ins' environment", () => {
  const parent = {
    PATH: "/usr/bin",
    HOME: "/home/trestle",
    LANG: "C.UTF-8",
    TRESTLE_TOKENS: "[...]",
    TRESTLE_ROUTER_TOKEN: "operator-token",
    TRESTLE_DATABASE_URL: "postgres://secret@db/trestle",
    TRESTLE_SESSION_SECRET: "s".repeat(40),
    TRESTLE_EXEC_UNCONFINED: "1",
    NODE_OPTIONS: "--require /tmp/x.js",
    AWS_SECRET_ACCESS_KEY: "x",
  };

  it("is the minimal environment, the built-ins' own token and the service's env, never the router's", () => {
    expect(
      builtinEnvironment({ name: "http", env: { TRESTLE_CAPABILITY_SECRET: "c" } }, parent, "builtin"),
    ).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/trestle",
      LANG: "C.UTF-8",
      MALLOC_ARENA_MAX: "1",
      TRESTLE_ROUTER_TOKEN: "builtin",
      TRESTLE_CAPABILITY_SECRET: "c",
    });
  });

  it("passes the code execution engine's sandbox opt-out to that engine only", () => {
    expect(builtinEnvironment({ name: "exec" }, parent, "builtin")).toHaveProperty(
      "TRESTLE_EXEC_UNCONFINED",
      "1",
    );
    expect(builtinEnvironment({ name: "file" }, parent, undefined)).not.toHaveProperty(
      "TRESTLE_EXEC_UNCONFINED",
    );
    expect(builtinEnvironment({ name: "file" }, parent, undefined)).not.toHaveProperty(
      "TRESTLE_ROUTER_TOKEN",
    );
  });
});

describe("sessions", () => {
  it("are bound to the principal that created them, on this replica and on another sharing the secret", async () => {
    const secret = Buffer.alloc(32, 7);
    const here = createSessionRegistry({ secret, idleTimeoutMs: 60_000, maxSessions: 10 });
    const there = createSessionRegistry({ secret, idleTimeoutMs: 60_000, maxSessions: 10 });
    const session = here.create("", "2025-06-18", "alice");
    expect(here.get(session.id, "", "alice")).toBe(session);
    expect(here.get(session.id, "", "bob")).toBeUndefined();
    expect(here.get(session.id, "")).toBeUndefined();
    expect(there.get(session.id, "", "bob")).toBeUndefined();
    expect((await there.get(session.id, "", "alice"))?.principal).toBe("alice");
  });

  it("over maxSessions, the one seen longest ago leaves memory first, to within a second; a stranger's get moves none", async () => {
    let now = 1_000_000;
    const sessions = createSessionRegistry({ idleTimeoutMs: 600_000, maxSessions: 3, clock: () => now });
    const held = () => [...sessions.all()].map((s) => s.id);
    const a = sessions.create("", "2025-06-18", "alice");
    now += 10;
    const b = sessions.create("", "2025-06-18", "alice");
    now += 10;
    const c = sessions.create("", "2025-06-18", "alice");
    now += 5_000;
    // a is seen again: it is now the most recent; bob's attempt on b does not count as b being seen.
    expect(sessions.get(a.id, "", "alice")).toBe(a);
    expect(sessions.get(b.id, "", "bob")).toBeUndefined();
    const d = sessions.create("", "2025-06-18", "alice");
    expect(held()).toEqual([c.id, a.id, d.id]);
    // Seen again within the second since it last moved: a keeps its place, so c is still the oldest.
    now += 500;
    sessions.get(a.id, "", "alice");
    expect(held()).toEqual([c.id, a.id, d.id]);
    // A second later c is seen: it moves behind d, and a is the one to go next.
    now += 1_000;
    sessions.get(c.id, "", "alice");
    expect(held()).toEqual([a.id, d.id, c.id]);
    sessions.create("", "2025-06-18", "alice");
    expect(held()).not.toContain(a.id);
    expect(held()).toContain(c.id);
    // An evicted session is not ended: its sealed id restores it.
    expect((await sessions.get(a.id, "", "alice"))?.id).toBe(a.id);
  });

  it("expire after their absolute lifetime however active, and their sealed id with them", () => {
    let now = 1_000_000;
    const clock = () => now;
    const secret = Buffer.alloc(32, 9);
    const sessions = createSessionRegistry({
      secret,
      idleTimeoutMs: 60_000,
      maxSessions: 10,
      maxAgeMs: 120_000,
      clock,
    });
    const session = sessions.create("", "2025-06-18", "alice");
    for (let i = 0; i < 3; i++) {
      now += 30_000;
      expect(sessions.get(session.id, "", "alice")).toBeDefined();
    }
    now += 30_000;
    expect(sessions.get(session.id, "", "alice")).toBeUndefined();
    const elsewhere = createSessionRegistry({
      secret,
      idleTimeoutMs: 60_000,
      maxSessions: 10,
      maxAgeMs: 120_000,
      clock,
    });
    expect(elsewhere.get(session.id, "", "alice")).toBeUndefined();
  });
});
