import { tmpdir } from "node:os";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  type RouterProcess,
  type RunningProcess,
  serviceHealthy,
  startFixtureCapability,
  startNode,
  stopAll,
  trestleCli,
} from "../support/processes.js";
import {
  type AuthorizationServer,
  claimsOf,
  freePort,
  startAuthorizationServer,
} from "./support/identity-setup.js";

/**
 * Code mode under OAuth with a token-exchanged upstream: a program run by `execute_code` calls, through
 * `tools.grpc_whoami()`, a gRPC service whose `upstreamAuth` exchanges the caller's token. Each inner call must carry
 * the token exchanged for the principal that ran the program: never the client's own token, never another
 * principal's. Two OAuth principals (alice, bob), and a static-token caller, who has nothing to exchange.
 */

const ADMIN = "code-exchange-admin-static-token-0001";
const STATIC_MCP = "code-exchange-static-mcp-token-0002";
const ROUTER_CLIENT_SECRET = "code-exchange-router-secret-0003";
const CLIENTS = {
  "alice-app": { secret: "alice-app-secret", sub: "alice", groups: ["finance"] },
  "bob-app": { secret: "bob-app-secret", sub: "bob", groups: ["support"] },
  trestle: { secret: ROUTER_CLIENT_SECRET, exchange: true },
};

interface RunOutput {
  status?: string;
  stdout: string;
  stderr: string;
}

describe("code mode inner calls to a token-exchanged upstream", () => {
  let idp: AuthorizationServer;
  let router: RouterProcess;
  let canary: RunningProcess;
  const admin = { authorization: `Bearer ${ADMIN}` };
  const clients: Client[] = [];

  /** An MCP client of the router with a token from the authorization server (client credentials). */
  async function oauthClient(clientId: "alice-app" | "bob-app") {
    const provider = new ClientCredentialsProvider({
      clientId,
      clientSecret: CLIENTS[clientId].secret,
      expectedIssuer: idp.issuer,
    });
    const client = new Client({ name: `code-exchange-${clientId}`, version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`), { authProvider: provider }),
    );
    clients.push(client);
    return { client, token: () => provider.tokens()?.access_token ?? "" };
  }

  /** Runs a JavaScript program through `execute_code` as `client`; it must have run. */
  async function run(client: Client, code: string): Promise<RunOutput> {
    const result = await client.callTool(
      { name: "execute_code", arguments: { language: "javascript", code, timeoutMs: 20_000 } },
      CallToolResultSchema,
      { timeout: 60_000 },
    );
    const out = result.structuredContent as unknown as RunOutput | undefined;
    if (!out || (out.status !== "completed" && out.status !== "failed"))
      throw new Error(JSON.stringify(result));
    return out;
  }

  /** A program that calls the canary `times` times, one call after the other, and prints each answer. */
  const callsCanary = (times: number) => `(async () => {
    for (let i = 0; i < ${times}; i++) console.log(await tools.grpc_whoami({}));
  })();`;

  /** The `authorization` metadata of each canary call since line `from`. */
  const seenSince = (from: number) =>
    canary.lines
      .slice(from)
      .filter((line) => line.includes('"authSeen"'))
      .map((line) => (JSON.parse(line) as { authSeen: string | null }).authSeen);

  beforeAll(async () => {
    idp = await startAuthorizationServer(CLIENTS);
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const proc = startNode(
      trestleCli,
      [
        "serve",
        "--port",
        String(port),
        "--log-level",
        "info",
        "--memory-store",
        "--builtins",
        "--root",
        tmpdir(),
      ],
      {
        TRESTLE_PROBE_INTERVAL_MS: "1000",
        TRESTLE_PUBLIC_URL: publicUrl,
        TRESTLE_OAUTH: JSON.stringify({ issuers: [{ issuer: idp.issuer }] }),
        TRESTLE_TOKENS: JSON.stringify([
          { name: "ops", token: ADMIN, scopes: ["admin", "register"] },
          { name: "ci", token: STATIC_MCP, scopes: ["mcp"] },
        ]),
        TRESTLE_SECRETS_KEY: "code-exchange-e2e-secrets-key-0123456789",
        TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
        TRESTLE_SERVICES: JSON.stringify({
          "canary-grpc": {
            upstreamAuth: {
              tokenExchange: {
                tokenEndpoint: `${idp.issuer}/token`,
                clientId: "trestle",
                clientSecret: ROUTER_CLIENT_SECRET,
                clientAuth: "client_secret_post",
                audience: "grpc-api",
              },
            },
          },
        }),
      },
    );
    const line = await proc.waitForLine((l) => l.includes('"router listening"'), 60_000);
    router = Object.assign(proc, { url: (JSON.parse(line) as { url: string }).url });
    canary = await startFixtureCapability(router.url, [
      "--service-name",
      "canary-grpc",
      "--service-type",
      "tool-invoker",
      "--token",
      ADMIN,
    ]);
    await api(
      router.url,
      "POST",
      "/api/v1/tools",
      {
        name: "grpc_whoami",
        uri: "fixture://auth-seen",
        type: "canary-grpc",
        inputSchema: { type: "object" },
      },
      admin,
    );
    await Promise.all([
      serviceHealthy(router.url, "canary-grpc", admin),
      serviceHealthy(router.url, "trestle", admin),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await stopAll();
  });

  it("sends each inner call the token exchanged for the principal that ran the program", async () => {
    const alice = await oauthClient("alice-app");
    const bob = await oauthClient("bob-app");
    const exchangedFor: Record<string, string> = {};
    for (const [who, sub] of [
      [alice, "alice"],
      [bob, "bob"],
    ] as const) {
      const from = canary.lines.length;
      const out = await run(who.client, callsCanary(2));
      expect(out.stdout.trim().split("\n")).toEqual(["ok", "ok"]);
      const seen = seenSince(from);
      expect(seen).toHaveLength(2);
      for (const authorization of seen) {
        expect(authorization).toMatch(/^Bearer /);
        const token = authorization?.slice("Bearer ".length) ?? "";
        expect(claimsOf(token)).toMatchObject({ sub, aud: "grpc-api", act: { sub: "trestle" } });
        expect(token).not.toBe(who.token());
      }
      exchangedFor[sub] = seen[0] ?? "";
    }
    expect(exchangedFor.alice).not.toBe(exchangedFor.bob);
    // No call the canary ever served carried a client's own token.
    for (const token of [alice.token(), bob.token()]) {
      expect(token).not.toBe("");
      expect(canary.lines.join("\n")).not.toContain(token);
    }
    // The router's log holds neither an exchanged token nor its client secret.
    const log = router.lines.join("\n");
    for (const authorization of Object.values(exchangedFor))
      expect(log).not.toContain(authorization.slice("Bearer ".length));
    expect(log).not.toContain(ROUTER_CLIENT_SECRET);
  });

  it("keeps two principals' programs apart when they run at the same time", async () => {
    const alice = await oauthClient("alice-app");
    const bob = await oauthClient("bob-app");
    const from = canary.lines.length;
    const outs = await Promise.all([run(alice.client, callsCanary(3)), run(bob.client, callsCanary(3))]);
    for (const out of outs) expect(out.stdout.trim().split("\n")).toEqual(["ok", "ok", "ok"]);
    const subjects = seenSince(from).map((a) => claimsOf(a?.slice("Bearer ".length) ?? "").sub);
    expect(subjects.filter((s) => s === "alice")).toHaveLength(3);
    expect(subjects.filter((s) => s === "bob")).toHaveLength(3);
  });

  it("refuses a static-token caller's inner call before the upstream: it has no token to exchange", async () => {
    const client = new Client({ name: "code-exchange-static", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${STATIC_MCP}` } },
      }),
    );
    clients.push(client);
    const from = canary.lines.length;
    const out = await run(
      client,
      `(async () => {
        try { console.log(await tools.grpc_whoami({})); }
        catch (e) { console.log(e instanceof ToolError ? "ToolError: " + e.message : "other: " + e); }
      })();`,
    );
    expect(out.stdout).toMatch(/^ToolError: .*needs an OAuth caller/);
    expect(seenSince(from)).toEqual([]);
  });
});
