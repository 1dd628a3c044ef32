import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openMcpSession, postMcp } from "../reliability/support/mcp-session.js";
import { eventually, startNode, startRouter, stopAll, trestleCli } from "../support/processes.js";

/**
 * Red team, access control: each test is an attack an outsider (or a lesser token) could make on a router set up
 * as the README documents. Each one worked before tokens closed every scope, before registrations were bound to
 * their principal, and before built-ins got their own credential; each must now be refused.
 */

const ADMIN = "red-access-admin-0123456789abcdef";
const MCP_A = "red-access-mcp-a-0123456789abcdef";
const MCP_B = "red-access-mcp-b-0123456789abcdef";
const TEAM_A = "red-access-team-a-0123456789abcde";
const REGISTER_A = "red-access-register-a-0123456789ab";
const REGISTER_B = "red-access-register-b-0123456789ab";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = { "content-type": "application/json" };
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "red-team", version: "1" } },
});

function registration(name: string, port: number, id?: string) {
  return {
    ...(id ? { id } : {}),
    serviceName: name,
    serviceType: "tool-invoker",
    host: "127.0.0.1",
    port,
  };
}

afterEach(async () => {
  await stopAll();
});
afterAll(async () => {
  await stopAll();
});

describe("red team: closed by default", () => {
  it("with only an admin token configured, an unauthenticated caller cannot register or deregister a service", async () => {
    const router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([{ name: "operator", token: ADMIN, scopes: ["admin"] }]),
    });
    const attack = await fetch(`${router.url}/api/v1/management/discovery`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(registration("evil", 9)),
    });
    expect(attack.status).toBe(401);

    // A service the operator registered cannot be removed by anyone without a token either.
    const registered = await fetch(`${router.url}/api/v1/management/discovery`, {
      method: "POST",
      headers: { ...json, ...bearer(ADMIN) },
      body: JSON.stringify(registration("weather", 9)),
    });
    expect(registered.status).toBe(200);
    const { id } = ((await registered.json()) as { data: { id: string } }).data;
    const deregister = await fetch(`${router.url}/api/v1/management/discovery`, {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ id }),
    });
    expect(deregister.status).toBe(401);
    const heartbeat = await fetch(`${router.url}/api/v1/management/discovery/heartbeats`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: id,
    });
    expect(heartbeat.status).toBe(401);
    const still = await fetch(`${router.url}/api/v1/capabilities/${id}`, { headers: bearer(ADMIN) });
    expect(still.status).toBe(200);
  });

  it("with only client tokens configured, an unauthenticated caller cannot add a forward (which would start a command)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "red-access-"));
    const marker = join(dir, "ran");
    try {
      const router = await startRouter([], {
        TRESTLE_TOKENS: JSON.stringify([
          { name: "clients", token: MCP_A, scopes: ["mcp"] },
          { name: "capabilities", token: REGISTER_A, scopes: ["register"] },
        ]),
      });
      const attack = await fetch(`${router.url}/api/v1/forwards`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({
          name: "pwn",
          upstream: {
            kind: "stdio",
            command: process.execPath,
            args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x")`],
          },
        }),
      });
      expect(attack.status).toBe(401);
      // Neither an MCP client's token nor a capability's opens the management API.
      for (const token of [MCP_A, REGISTER_A]) {
        const lesser = await fetch(`${router.url}/api/v1/forwards`, { headers: bearer(token) });
        expect(lesser.status).toBe(403);
      }
      await new Promise((r) => setTimeout(r, 1_000));
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a namespace probe cannot tell an unknown namespace from an existing, forbidden one", async () => {
    const router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: ADMIN, scopes: ["admin"] },
        { name: "team-a", token: TEAM_A, scopes: ["mcp"], namespaces: ["team-a"] },
      ]),
    });
    for (const name of ["team-a", "payroll"]) {
      const created = await fetch(`${router.url}/api/v1/namespaces`, {
        method: "POST",
        headers: { ...json, ...bearer(ADMIN) },
        body: JSON.stringify({ name }),
      });
      expect(created.status).toBe(200);
    }
    const probe = async (namespace: string, headers: Record<string, string>) => {
      const response = await postMcp(`${router.url}/${namespace}/mcp`, INITIALIZE, headers);
      const visible = [...response.headers.entries()].filter(([k]) => k !== "date").sort();
      return { status: response.status, text: response.text, headers: visible };
    };
    for (const headers of [{}, bearer("not-a-token-0123456789abcdef"), bearer(TEAM_A)]) {
      const existing = await probe("payroll", headers);
      const unknown = await probe("no-such-team", headers);
      expect(existing.status).not.toBe(200);
      expect(unknown).toEqual(existing);
    }
    // A token allowed every namespace may learn that one does not exist.
    expect((await probe("no-such-team", bearer(ADMIN))).status).toBe(404);
  });
});

describe("red team: least privilege between principals", () => {
  it("a register token cannot take over a service name registered by another, nor rewrite its address", async () => {
    const router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: ADMIN, scopes: ["admin"] },
        { name: "weather-team", token: REGISTER_A, scopes: ["register"] },
        { name: "other-team", token: REGISTER_B, scopes: ["register"] },
      ]),
      // Loopback allowed, so that what refuses the attacks below is the binding, not the address rule.
      TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
    });
    const register = (token: string, body: unknown) =>
      fetch(`${router.url}/api/v1/management/discovery`, {
        method: "POST",
        headers: { ...json, ...bearer(token) },
        body: JSON.stringify(body),
      });
    const legit = await register(REGISTER_A, registration("weather", 7001));
    expect(legit.status).toBe(200);
    const { id } = ((await legit.json()) as { data: { id: string } }).data;

    // The same id with the attacker's address: the router would send weather's calls to the attacker.
    const rewrite = await register(REGISTER_B, { ...registration("weather", 6666, id), host: "127.0.0.2" });
    expect(rewrite.status).toBe(403);
    // A new instance under the taken name would get a share of its calls.
    const hijack = await register(REGISTER_B, registration("weather", 6667));
    expect(hijack.status).toBe(403);
    const heartbeat = await fetch(`${router.url}/api/v1/management/discovery/heartbeats`, {
      method: "POST",
      headers: { "content-type": "text/plain", ...bearer(REGISTER_B) },
      body: id,
    });
    expect(heartbeat.status).toBe(403);
    const deregister = await fetch(`${router.url}/api/v1/management/discovery`, {
      method: "DELETE",
      headers: { ...json, ...bearer(REGISTER_B) },
      body: JSON.stringify({ id }),
    });
    expect(deregister.status).toBe(403);

    const services = (await (
      await fetch(`${router.url}/api/v1/capabilities`, { headers: bearer(ADMIN) })
    ).json()) as { data: { id: string; target: { serviceName: string; host: string; port: number } }[] };
    const weather = services.data.filter((s) => s.target.serviceName === "weather");
    expect(weather).toEqual([
      expect.objectContaining({ id, target: expect.objectContaining({ port: 7001 }) }),
    ]);

    // The owner keeps full use of its registration: Wanaku's re-registration with the same id still works.
    expect((await register(REGISTER_A, registration("weather", 7002, id))).status).toBe(200);
  });

  it("a session id replayed with another client's token is refused like an unknown session", async () => {
    const router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "alice", token: MCP_A, scopes: ["mcp"] },
        { name: "bob", token: MCP_B, scopes: ["mcp"] },
      ]),
    });
    const session = await openMcpSession(`${router.url}/mcp`, bearer(MCP_A));
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const withSession = (token: string) => ({
      ...bearer(token),
      "mcp-session-id": session.sessionId,
      "mcp-protocol-version": "2025-06-18",
    });
    expect((await postMcp(`${router.url}/mcp`, ping, withSession(MCP_A))).status).toBe(200);
    expect((await postMcp(`${router.url}/mcp`, ping, withSession(MCP_B))).status).toBe(404);
  });

  it("built-in services get neither the router's tokens nor an operator's credential in their environment, and keep their names", async () => {
    const router = await startRouter(["--builtins", "--root", tmpdir()], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: ADMIN, scopes: ["admin"] },
        { name: "clients", token: MCP_A, scopes: ["mcp"] },
        { name: "partner", token: REGISTER_A, scopes: ["register"] },
      ]),
      TRESTLE_RED_TEAM_CANARY: "canary-0123456789",
    });
    await router.waitForLine((l) => l.includes("is serving MCP"), 60_000);
    const pid = router.child.pid as number;
    const children = await eventually(() => {
      const list = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
      return list.filter(Boolean).length >= 3 ? list.filter(Boolean) : undefined;
    });
    for (const child of children) {
      const environ = readFileSync(`/proc/${child}/environ`, "utf8").split("\0");
      const text = environ.join("\n");
      expect(text).not.toContain("TRESTLE_TOKENS");
      expect(text).not.toContain(ADMIN);
      expect(text).not.toContain(MCP_A);
      expect(text).not.toContain("canary-0123456789");
      // They do get a credential, for registration only.
      expect(environ.some((v) => v.startsWith("TRESTLE_ROUTER_TOKEN="))).toBe(true);
    }
    // And the built-ins registered with it.
    const names = await eventually(async () => {
      const response = await fetch(`${router.url}/api/v1/capabilities`, { headers: bearer(ADMIN) });
      const body = (await response.json()) as { data: { target: { serviceName: string } }[] };
      const found = new Set(body.data.map((s) => s.target.serviceName));
      return found.size >= 3 ? found : undefined;
    }, 30_000);
    expect(names.size).toBeGreaterThanOrEqual(3);
    // A capability's register token cannot put its own address under a built-in's name.
    for (const name of ["http", "file"]) {
      const squat = await fetch(`${router.url}/api/v1/management/discovery`, {
        method: "POST",
        headers: { ...json, ...bearer(REGISTER_A) },
        body: JSON.stringify(registration(name, 6666)),
      });
      expect(squat.status, name).toBe(403);
    }
  });
});

describe("red team: listening on a network without tokens", () => {
  it("`trestle serve --host 0.0.0.0` without tokens refuses to start; --insecure-open starts with a warning", async () => {
    const refused = startNode(trestleCli, ["serve", "--host", "0.0.0.0", "--port", "0", "--memory-store"]);
    const code = await new Promise<number | null>((resolve) => {
      if (refused.child.exitCode !== null) resolve(refused.child.exitCode);
      refused.child.once("exit", (c) => resolve(c));
      setTimeout(() => resolve(-1), 30_000);
    });
    const output = refused.lines.join("\n");
    await refused.stop(1_000);
    expect(code, output).not.toBe(0);
    expect(code, output).not.toBe(-1);
    expect(output).toMatch(/--insecure-open/);
    expect(output).toMatch(/token/i);

    const open = await startRouter(["--host", "0.0.0.0", "--insecure-open"]);
    const warning = await open.waitForLine((l) => l.includes('"level":40') && /open/i.test(l), 10_000);
    expect(warning).toMatch(/every scope/i);
  });
});
