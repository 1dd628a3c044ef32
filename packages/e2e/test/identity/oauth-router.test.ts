import { type Part, Role, type Task } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RouterProcess,
  type RunningProcess,
  serviceHealthy,
  startFixtureCapability,
  startNode,
  stopAll,
} from "../support/processes.js";
import {
  type AuthorizationServer,
  CANARY_MCP_SERVER,
  claimsOf,
  freePort,
  startAuthorizationServer,
  startRouterOn,
  tokenOfUnpublishedKey,
  unsignedToken,
} from "./support/identity-setup.js";

const ADMIN = "identity-admin-static-token-0001";
const STATIC_MCP = "identity-static-mcp-token-0002";
const ROUTER_CLIENT_SECRET = "router-client-secret-canary-0003";
const STATIC_UPSTREAM = "static-upstream-credential-canary-0004";
const CLIENTS = {
  "alice-app": { secret: "alice-app-secret", sub: "alice", groups: ["finance"] },
  "bob-app": { secret: "bob-app-secret", sub: "bob", groups: ["support"] },
  trestle: { secret: ROUTER_CLIENT_SECRET, exchange: true },
};
const POLICIES = [
  {
    name: "payments-finance-only",
    effect: "deny",
    when: 'tool.name.startsWith("pay_") && !("finance" in principal.groups)',
  },
  { name: "no-atlantis", effect: "deny", when: '"city" in arguments && arguments.city == "Atlantis"' },
];

/** What a call came to: its result's text, or the message it failed with. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    const result = (await call) as { content?: { type: string; text?: string }[] };
    return (result.content ?? []).map((c) => c.text ?? "").join("");
  } catch (error) {
    return (error as Error).message;
  }
}

function callPart(tool: string, args: Record<string, unknown>): Part {
  return {
    content: { $case: "data", value: { tool, arguments: args } },
    metadata: undefined,
    filename: "",
    mediaType: "application/json",
  };
}

describe("the router as an OAuth resource server, with policies and upstream token exchange", () => {
  let idp: AuthorizationServer;
  let router: RouterProcess;
  let canary: RunningProcess;
  /** The gRPC services with an upstreamAuth: each prints the authorization metadata of every call it serves. */
  const grpcCanaries: Record<string, RunningProcess> = {};
  let publicUrl = "";
  const admin = { authorization: `Bearer ${ADMIN}` };

  /** An MCP SDK client that gets its own token by client credentials at the router's authorization server. */
  async function mcpClientAs(clientId: keyof typeof CLIENTS) {
    const provider = new ClientCredentialsProvider({
      clientId,
      clientSecret: CLIENTS[clientId].secret,
      expectedIssuer: idp.issuer,
    });
    const client = new Client({ name: `identity-${clientId}`, version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`), { authProvider: provider }),
    );
    return { client, provider };
  }

  /** An A2A client of the router's agent, sending `token`. */
  async function a2aClientWith(token: string) {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    return new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }).createFromUrl(`${router.url}/a2a`);
  }

  /** A raw MCP request with `token`: the status and the challenge. */
  async function mcpWith(token: string | undefined) {
    const response = await fetch(`${router.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    await response.body?.cancel();
    return { status: response.status, challenge: response.headers.get("www-authenticate") ?? "" };
  }

  beforeAll(async () => {
    idp = await startAuthorizationServer(CLIENTS);
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    router = await startRouterOn(port, {
      TRESTLE_PUBLIC_URL: publicUrl,
      // A short JWKS cooldown so that the rotated key is fetched within the test.
      TRESTLE_OAUTH: JSON.stringify({ issuers: [{ issuer: idp.issuer }], jwksCooldownMs: 1000 }),
      TRESTLE_TOKENS: JSON.stringify([
        { name: "ops", token: ADMIN, scopes: ["admin", "register"] },
        { name: "ci", token: STATIC_MCP, scopes: ["mcp"] },
      ]),
      TRESTLE_POLICIES: JSON.stringify(POLICIES),
      TRESTLE_SECRETS_KEY: "identity-e2e-secrets-key-0123456789abcdef",
      // Two gRPC services with the router's own credential: exchanged per caller, and static.
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
        "static-grpc": { upstreamAuth: { static: { value: `Bearer ${STATIC_UPSTREAM}` } } },
      }),
    });
    await startFixtureCapability(router.url, [
      "--service-name",
      "fixture-grpc",
      "--service-type",
      "tool-invoker",
      "--token",
      ADMIN,
    ]);
    for (const name of ["echo", "pay_echo"]) {
      await api(
        router.url,
        "POST",
        "/api/v1/tools",
        {
          name,
          description: "Echoes its arguments",
          uri: "fixture://echo",
          type: "fixture-grpc",
          inputSchema: { type: "object", properties: { city: { type: "string" } } },
        },
        admin,
      );
    }
    await serviceHealthy(router.url, "fixture-grpc", admin);
    for (const [service, tool] of [
      ["canary-grpc", "grpc_whoami"],
      ["static-grpc", "static_whoami"],
    ] as const) {
      grpcCanaries[service] = await startFixtureCapability(router.url, [
        "--service-name",
        service,
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
          name: tool,
          uri: "fixture://auth-seen",
          type: service,
          inputSchema: { type: "object", properties: {} },
        },
        admin,
      );
      await serviceHealthy(router.url, service, admin);
    }
    canary = startNode(CANARY_MCP_SERVER, []);
    const { url } = JSON.parse(await canary.waitForLine((l) => l.includes('"ready"'), 30_000)) as {
      url: string;
    };
    await api(
      router.url,
      "POST",
      "/api/v1/forwards",
      {
        name: "canary",
        url,
        upstreamAuth: {
          tokenExchange: {
            tokenEndpoint: `${idp.issuer}/token`,
            clientId: "trestle",
            clientSecret: ROUTER_CLIENT_SECRET,
            audience: "canary-api",
          },
        },
      },
      admin,
    );
    await eventually(
      async () => {
        const tools = await api<{ name: string }[]>(router.url, "GET", "/api/v1/tools", undefined, admin);
        return tools.some((t) => t.name === "whoami") ? true : undefined;
      },
      30_000,
      "the canary's tool imported",
    );
  }, 180_000);

  afterAll(stopAll);

  it("challenges a request without a token, pointing at its RFC 9728 document", async () => {
    const { status, challenge } = await mcpWith(undefined);
    expect(status).toBe(401);
    expect(challenge).toContain(
      `Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadata = (await (
      await fetch(`${router.url}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as { resource: string; authorization_servers: string[]; scopes_supported?: string[] };
    expect(metadata.resource).toBe(`${publicUrl}/mcp`);
    expect(metadata.authorization_servers).toEqual([idp.issuer]);
  });

  it("lets the MCP SDK client get a token by client credentials, then list and call tools", async () => {
    const { client, provider } = await mcpClientAs("alice-app");
    try {
      expect(provider.tokens()?.access_token).toBeTruthy();
      expect(claimsOf(provider.tokens()?.access_token ?? "").aud).toBe(`${publicUrl}/mcp`);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["echo", "pay_echo", "whoami"]));
      expect(await outcome(client.callTool({ name: "echo", arguments: { city: "Oslo" } }))).toContain("Oslo");
    } finally {
      await client.close();
    }
  });

  it("filters each principal's tools by its groups over MCP, and refuses a call naming the rule", async () => {
    const alice = await mcpClientAs("alice-app");
    const bob = await mcpClientAs("bob-app");
    try {
      expect((await alice.client.listTools()).tools.map((t) => t.name)).toContain("pay_echo");
      const bobs = (await bob.client.listTools()).tools.map((t) => t.name);
      expect(bobs).toContain("echo");
      expect(bobs).not.toContain("pay_echo");
      // A tool the rules hide is unknown to the principal: its call does not tell that it exists.
      expect(await outcome(bob.client.callTool({ name: "pay_echo", arguments: { city: "Oslo" } }))).toMatch(
        /Unknown tool: pay_echo/,
      );
      expect(
        await outcome(alice.client.callTool({ name: "pay_echo", arguments: { city: "Oslo" } })),
      ).toContain("Oslo");
      // A rule on the arguments hides nothing: it refuses the call itself, for anyone, naming the rule.
      for (const who of [alice, bob]) {
        expect(await outcome(who.client.callTool({ name: "echo", arguments: { city: "Atlantis" } }))).toMatch(
          /rule 'no-atlantis'/,
        );
      }
      expect(await outcome(bob.client.callTool({ name: "echo", arguments: { city: "Oslo" } }))).toContain(
        "Oslo",
      );
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });

  it("applies the same rules over A2A, per principal", async () => {
    const aliceToken = await idp.clientCredentials("alice-app", CLIENTS["alice-app"].secret, publicUrl);
    const bobToken = await idp.clientCredentials("bob-app", CLIENTS["bob-app"].secret, publicUrl);
    const send = async (token: string, tool: string, city: string) => {
      const client = await a2aClientWith(token);
      const message = {
        messageId: crypto.randomUUID(),
        contextId: "",
        taskId: "",
        role: Role.ROLE_USER,
        parts: [callPart(tool, { city })],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      // What the agent answered: its artifacts' text, else its status message's (a refusal), else the error.
      try {
        const task = (await client.sendMessage({
          tenant: "",
          message,
          configuration: undefined,
          metadata: undefined,
        })) as Task;
        const texts = (parts: Part[]) =>
          parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("");
        const artifacts = texts(task.artifacts.flatMap((a) => a.parts));
        return artifacts !== ""
          ? `artifacts: ${artifacts}`
          : `status: ${texts(task.status?.message?.parts ?? [])}`;
      } catch (error) {
        return `error: ${(error as Error).message}`;
      }
    };
    const skillsOf = async (token: string) =>
      (await (await a2aClientWith(token)).getAgentCard()).skills.map((skill) => skill.id);
    // Each principal's card lists the skills its rules leave it, and a hidden one cannot be called.
    expect(await skillsOf(aliceToken)).toContain("pay_echo");
    expect(await skillsOf(bobToken)).not.toContain("pay_echo");
    expect(await skillsOf(bobToken)).toContain("echo");
    expect(await send(bobToken, "pay_echo", "Bergen")).toMatch(/^status: No tool named 'pay_echo'/);
    expect(await send(aliceToken, "pay_echo", "Bergen")).toMatch(/^artifacts: .*Bergen/);
    // A rule on the arguments refuses the call itself, naming the rule.
    expect(await send(bobToken, "echo", "Atlantis")).toMatch(/rule 'no-atlantis'/);
  });

  it("refuses a token for another audience, an expired one, an unsigned one, another issuer's, one of an unpublished key, and one without the scope", async () => {
    const now = Math.floor(Date.now() / 1000);
    const wrongAudience = await idp.mint({
      sub: "alice",
      scope: "mcp",
      aud: "https://elsewhere.example/mcp",
    });
    expect((await mcpWith(wrongAudience)).status).toBe(401);
    const expired = await idp.mint({ sub: "alice", scope: "mcp", aud: `${publicUrl}/mcp` }, -600);
    expect((await mcpWith(expired)).status).toBe(401);
    const unsigned = unsignedToken({
      iss: idp.issuer,
      sub: "alice",
      scope: "mcp",
      aud: `${publicUrl}/mcp`,
      iat: now,
      exp: now + 300,
    });
    expect((await mcpWith(unsigned)).status).toBe(401);
    // Signed with the trusted key, but made in another issuer's name.
    const otherIssuer = await idp.mint({
      iss: "https://other-issuer.example",
      sub: "alice",
      scope: "mcp",
      aud: `${publicUrl}/mcp`,
    });
    expect((await mcpWith(otherIssuer)).status).toBe(401);
    // In the trusted issuer's name, signed with a key it never published.
    const unpublished = await tokenOfUnpublishedKey({
      iss: idp.issuer,
      sub: "alice",
      scope: "mcp",
      aud: `${publicUrl}/mcp`,
    });
    const refused = await mcpWith(unpublished);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^Bearer .*resource_metadata="[^"]+"/);
    const noScope = await idp.mint({ sub: "alice", scope: "profile", aud: `${publicUrl}/mcp` });
    const forbidden = await mcpWith(noScope);
    expect(forbidden.status).toBe(403);
    expect(forbidden.challenge).toContain('error="insufficient_scope"');
    expect(forbidden.challenge).toContain("resource_metadata=");
  });

  it("accepts a token signed with a rotated key once it has fetched the new key set", async () => {
    const before = await idp.mint({ sub: "alice", scope: "mcp", aud: `${publicUrl}/mcp` });
    expect((await mcpWith(before)).status).toBe(200);
    await idp.rotate();
    // Past the configured cooldown, an unknown kid makes the router fetch the keys again.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const after = await idp.mint({ sub: "alice", scope: "mcp", aud: `${publicUrl}/mcp` });
    expect(claimsOf(after).sub).toBe("alice");
    expect((await mcpWith(after)).status).toBe(200);
  });

  /** The `authorization` values the canary received for `call`'s requests (its `initialize` and `tools/call`). */
  async function canaryReceived(call: () => Promise<unknown>) {
    const seenBefore = canary.lines.length;
    expect(await outcome(call())).toBe("ok");
    return receivedIn(canary.lines.slice(seenBefore));
  }

  /** The requests the canary reported in `lines` (its `ready` line left out). */
  function receivedIn(lines: readonly string[]) {
    return lines
      .map((line) => JSON.parse(line) as { received?: { method: string; authorization: string | null } })
      .flatMap((line) => (line.received ? [line.received] : []));
  }

  it("sends the canary a token exchanged for its audience per principal, never the caller's own", async () => {
    const alice = await mcpClientAs("alice-app");
    const bob = await mcpClientAs("bob-app");
    const callerTokens = [alice, bob].map((c) => c.provider.tokens()?.access_token ?? "");
    try {
      const exchanged: string[] = [];
      for (const [who, sub] of [
        [alice, "alice"],
        [bob, "bob"],
      ] as const) {
        const received = await canaryReceived(() => who.client.callTool({ name: "whoami", arguments: {} }));
        const call = received.find((r) => r.method === "tools/call");
        expect(call?.authorization).toMatch(/^Bearer /);
        const token = call?.authorization?.slice("Bearer ".length) ?? "";
        expect(claimsOf(token)).toMatchObject({ sub, aud: "canary-api", act: { sub: "trestle" } });
        // Every POST with a credential meanwhile (the connection's initialize too) carried this principal's token
        // alone; the router's own catalog reads carry none. The SDK client opens its GET stream after
        // `notifications/initialized` without waiting for it, so a connection's GET may land in the next window:
        // those are checked once both tokens are known.
        for (const request of received) {
          if (request.authorization !== null && request.method !== "GET") {
            expect(request.authorization).toBe(`Bearer ${token}`);
          }
        }
        exchanged.push(token);
      }
      for (const { method, authorization } of receivedIn(canary.lines)) {
        if (method === "GET" && authorization !== null) {
          expect(exchanged.map((t) => `Bearer ${t}`)).toContain(authorization);
        }
      }
      expect(idp.lines.filter((l) => l.includes('"exchanged"')).length).toBeGreaterThanOrEqual(2);
      // Not one request the canary ever got carried a caller's own token.
      for (const callerToken of callerTokens) {
        expect(callerToken).not.toBe("");
        expect(canary.lines.join("\n")).not.toContain(callerToken);
      }
      // The router's own logs hold neither an exchanged token nor its client secret.
      for (const token of exchanged) expect(router.lines.join("\n")).not.toContain(token);
      expect(router.lines.join("\n")).not.toContain(ROUTER_CLIENT_SECRET);
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });

  it("gives a gRPC service the caller's exchanged token as metadata, and another its static credential", async () => {
    const { client, provider } = await mcpClientAs("bob-app");
    const seen = async (service: string, tool: string) => {
      const lines = grpcCanaries[service]?.lines ?? [];
      const before = lines.length;
      expect(await outcome(client.callTool({ name: tool, arguments: {} }))).toBe("ok");
      const reported = lines.slice(before).find((line) => line.includes('"authSeen"'));
      return (JSON.parse(reported ?? "{}") as { authSeen?: string | null }).authSeen;
    };
    try {
      const exchanged = await seen("canary-grpc", "grpc_whoami");
      expect(exchanged).toMatch(/^Bearer /);
      expect(exchanged).not.toContain(provider.tokens()?.access_token ?? "-");
      expect(claimsOf(exchanged?.slice("Bearer ".length) ?? "")).toMatchObject({
        sub: "bob",
        aud: "grpc-api",
      });
      expect(await seen("static-grpc", "static_whoami")).toBe(`Bearer ${STATIC_UPSTREAM}`);
      expect(router.lines.join("\n")).not.toContain(STATIC_UPSTREAM);
    } finally {
      await client.close();
    }
  });

  it("keeps static tokens working beside OAuth, and refuses a static caller the exchanged upstream", async () => {
    const client = new Client({ name: "identity-static", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${STATIC_MCP}` } },
      }),
    );
    try {
      expect(await outcome(client.callTool({ name: "echo", arguments: { city: "Tromsø" } }))).toContain(
        "Tromsø",
      );
      const seenBefore = canary.lines.length;
      expect(await outcome(client.callTool({ name: "whoami", arguments: {} }))).toMatch(
        /needs an OAuth caller/,
      );
      // Refused before the upstream: no call reached the canary, with or without a credential.
      expect(canary.lines.slice(seenBefore).some((l) => l.includes('"tools/call"'))).toBe(false);
    } finally {
      await client.close();
    }
  });
});
