import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterProcess, startRouter, stopAll } from "./support/processes.js";

const ADMIN = "admin-token-0123456789abcdef";
const MCP_TEAM_A = "mcp-team-a-0123456789abcdef";

/** Bad input of every kind a client can send: each gets the right error, and the router keeps serving. */
describe("the router refuses bad input and keeps serving", () => {
  let router: RouterProcess;
  const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${router.url}${path}`, { method: "POST", headers: { ...mcpHeaders, ...headers }, body });

  async function healthyAfter() {
    const response = await fetch(`${router.url}/healthz`);
    expect(response.status).toBe(200);
    const init = await post(
      "/mcp",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "probe", version: "1" },
        },
      }),
      { authorization: `Bearer ${MCP_TEAM_A}` },
    );
    expect(init.status).toBe(200);
  }

  beforeAll(async () => {
    router = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "admin", token: ADMIN, scopes: ["admin"] },
        { name: "team-a", token: MCP_TEAM_A, scopes: ["mcp"], namespaces: ["", "team-a"] },
      ]),
      TRESTLE_MAX_BODY_BYTES: "65536",
    });
    const created = await fetch(`${router.url}/api/v1/namespaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "team-b" }),
    });
    expect(created.status).toBe(200);
  }, 120_000);

  afterAll(stopAll);

  it("answers malformed JSON-RPC with JSON-RPC errors", async () => {
    const auth = { authorization: `Bearer ${MCP_TEAM_A}` };
    const cases: [string, number, number][] = [
      ["{", 400, -32700],
      ["null", 400, -32600],
      ['{"jsonrpc":"2.0"}', 400, -32600],
      ['{"jsonrpc":"2.0","id":[1],"method":"ping"}', 400, -32600],
      ['{"jsonrpc":"2.0","id":1,"method":42}', 400, -32600],
      ['{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}', 400, -32600],
      ["\xff\xfe\xfd", 400, -32700],
      [`${"[".repeat(5000)}${"]".repeat(5000)}`, 400, -32600],
    ];
    for (const [body, status, code] of cases) {
      const response = await post("/mcp", body, auth);
      expect(response.status, body.slice(0, 40)).toBe(status);
      expect(((await response.json()) as { error: { code: number } }).error.code, body.slice(0, 40)).toBe(
        code,
      );
    }
    await healthyAfter();
  });

  it("answers unknown methods and wrong parameter types inside a session", async () => {
    const auth = { authorization: `Bearer ${MCP_TEAM_A}` };
    const init = await post(
      "/mcp",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
      auth,
    );
    const session = { ...auth, "mcp-session-id": init.headers.get("mcp-session-id") as string };
    const unknown = await post("/mcp", '{"jsonrpc":"2.0","id":2,"method":"tools/teleport"}', session);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const wrong = await post(
      "/mcp",
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}',
      session,
    );
    expect(((await wrong.json()) as { error: { code: number } }).error.code).toBe(-32602);
    const noTool = await post(
      "/mcp",
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}',
      session,
    );
    expect(((await noTool.json()) as { error: { message: string } }).error.message).toContain("nope");
    await healthyAfter();
  });

  it("refuses oversized bodies with 413, on MCP and on the management API", async () => {
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(200_000) },
    });
    expect((await post("/mcp", huge, { authorization: `Bearer ${MCP_TEAM_A}` })).status).toBe(413);
    const api = await fetch(`${router.url}/api/v1/tools`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "t", uri: "x://y", type: "z", description: "d".repeat(200_000) }),
    });
    expect(api.status).toBe(413);
    await healthyAfter();
  });

  it("checks tokens: missing or wrong → 401, wrong scope or namespace → 403, health stays public", async () => {
    const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const none = await post("/mcp", ping);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await post("/mcp", ping, { authorization: "Bearer not-a-real-token-at-all" })).status).toBe(401);
    expect((await post("/team-b/mcp", ping, { authorization: `Bearer ${MCP_TEAM_A}` })).status).toBe(403);
    expect((await fetch(`${router.url}/api/v1/tools`)).status).toBe(401);
    expect(
      (await fetch(`${router.url}/api/v1/tools`, { headers: { authorization: `Bearer ${MCP_TEAM_A}` } }))
        .status,
    ).toBe(403);
    expect(
      (await fetch(`${router.url}/api/v1/tools`, { headers: { authorization: `Bearer ${ADMIN}` } })).status,
    ).toBe(200);
    expect((await fetch(`${router.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${router.url}/readyz`)).status).toBe(200);
  });

  it("refuses path traversal and junk in namespace paths", async () => {
    const auth = { authorization: `Bearer ${ADMIN}` };
    // Sent raw: fetch would normalise the dot segments away before they reach the router.
    const { request } = await import("node:http");
    const rawStatus = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${router.url}/`,
          { method: "POST", path, headers: { ...mcpHeaders, ...auth } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end("{}");
      });
    for (const path of [
      "/../mcp",
      "/..%2f..%2fetc/mcp",
      "/%2e%2e/mcp",
      "/Team-A/mcp",
      "/a_b/mcp",
      "/nope/mcp",
      "/a/b/mcp",
      "//mcp/../mcp",
    ]) {
      expect(await rawStatus(path), path).toBe(404);
    }
    const bad = await fetch(`${router.url}/api/v1/namespaces`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "../../etc" }),
    });
    expect(bad.status).toBe(400);
    await healthyAfter();
  });

  it("refuses a foreign Host or Origin (DNS rebinding)", async () => {
    const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const auth = { authorization: `Bearer ${MCP_TEAM_A}` };
    expect((await post("/mcp", ping, { ...auth, origin: "https://evil.example" })).status).toBe(403);
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${router.url}/mcp`,
        { method: "POST", headers: { ...mcpHeaders, ...auth, host: "evil.example" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(ping);
    });
    expect(status).toBe(403);
  });

  it("refuses malformed management payloads with 400 and a message naming the problem", async () => {
    const auth = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
    const cases: [string, string, string][] = [
      ["/api/v1/tools", "not json", "not valid JSON"],
      ["/api/v1/tools", "[]", "object"],
      ["/api/v1/tools", '{"name":"a b","uri":"x://y","type":"t"}', "name"],
      ["/api/v1/tools", `{"name":"t'; DROP TABLE tools;--","uri":"x://y","type":"t"}`, "name"],
      [
        "/api/v1/management/discovery",
        '{"serviceName":"s","host":"h","port":"eighty","serviceType":"tool-invoker"}',
        "port",
      ],
      [
        "/api/v1/management/discovery",
        '{"serviceName":"s","host":"h","port":1,"serviceType":"toaster"}',
        "serviceType",
      ],
      ["/api/v2/code-execution-engine/x/y", '{"code":5}', "code"],
    ];
    for (const [path, body, mention] of cases) {
      const response = await fetch(`${router.url}${path}`, { method: "POST", headers: auth, body });
      expect(response.status, `${path} ${body}`).toBe(400);
      const envelope = (await response.json()) as { error: { message: string }; data: null };
      expect(envelope.data).toBeNull();
      expect(envelope.error.message, body).toContain(mention);
    }
    const tools = await fetch(`${router.url}/api/v1/tools`, { headers: auth });
    expect(((await tools.json()) as { data: unknown[] }).data).toEqual([]);
  });
});
