import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterProcess, startRouter, stopAll } from "../support/processes.js";

const ADMIN = "admin-token-a2a-0001";
const TEAM_A = "team-a-token-a2a-0002";

/** The A2A front behind the same token checks as MCP: closed once tokens exist. */
describe("the router's A2A agents with tokens configured", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "admin", token: ADMIN, scopes: ["admin"] },
        { name: "team-a", token: TEAM_A, scopes: ["mcp"], namespaces: ["", "team-a"] },
      ]),
    });
    for (const name of ["team-a", "team-b"]) {
      const created = await fetch(`${router.url}/api/v1/namespaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      expect(created.status).toBe(200);
    }
  }, 120_000);

  afterAll(stopAll);

  const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
    fetch(`${router.url}${path}`, {
      headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

  it("refuses the card and the endpoint without a token, or with a token for another namespace", async () => {
    expect((await get("/a2a/.well-known/agent-card.json")).status).toBe(401);
    expect((await get("/.well-known/agent-card.json")).status).toBe(401);
    expect((await get("/team-b/a2a/.well-known/agent-card.json", TEAM_A)).status).toBe(403);
    const call = await fetch(`${router.url}/team-a/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
    });
    expect(call.status).toBe(401);
    expect(call.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("serves them with a token for the namespace, the card declaring the bearer scheme", async () => {
    const response = await get("/team-a/a2a/.well-known/agent-card.json", TEAM_A, { "a2a-version": "1.0" });
    expect(response.status).toBe(200);
    const card = (await response.json()) as {
      supportedInterfaces: { url: string }[];
      securitySchemes: Record<string, unknown>;
      securityRequirements: unknown[];
    };
    expect(card.supportedInterfaces[0]?.url).toBe(`${router.url}/team-a/a2a`);
    expect(Object.keys(card.securitySchemes)).toEqual(["bearer"]);
    expect(card.securityRequirements).toHaveLength(1);
    // A v0.3 reader (no A2A-Version) gets the v0.3 card, which declares the scheme its own way.
    const legacy = (await (await get("/team-a/a2a/.well-known/agent-card.json", TEAM_A)).json()) as {
      security: unknown[];
      securitySchemes: Record<string, { type: string; scheme: string }>;
    };
    expect(legacy.securitySchemes.bearer).toEqual({ type: "http", scheme: "Bearer" });
    expect(legacy.security).toEqual([{ bearer: [] }]);
    const call = await fetch(`${router.url}/team-a/a2a`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "a2a-version": "1.0",
        authorization: `Bearer ${TEAM_A}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "no-such-task" } }),
    });
    expect(((await call.json()) as { error: { code: number } }).error.code).toBe(-32001);
    expect((await get("/nope/a2a/.well-known/agent-card.json", ADMIN)).status).toBe(404);
  });
});
