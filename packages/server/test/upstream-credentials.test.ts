import { createTokenExchanger } from "@trestle/auth";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  createContextValues,
  type ServiceTarget,
  type ToolResult,
  TrestleError,
  upstreamCredentialKey,
} from "@trestle/core";
import type { UpstreamAuth } from "@trestle/core/catalog";
import { describe, expect, it } from "vitest";
import { type CallerPrincipal, callerPrincipal, callerPrincipalKey } from "../src/calls/caller.js";
import { connectionUpstream, perCallUpstreamAuth } from "../src/forwards/forward-credentials.js";
import {
  type CredentialDelivery,
  createUpstreamCredentials,
  type UpstreamCredentialSources,
  withUpstreamCredentials,
} from "../src/upstream-credentials.js";

const CALLER_TOKEN = "caller-access-token-canary";
const CLIENT_SECRET = "router-client-secret-canary";

function target(serviceName: string): ServiceTarget {
  return { id: `${serviceName}-1`, serviceName, host: "127.0.0.1", port: 1, serviceType: "multi-capability" };
}

/** A transport that answers every tool call with what it received: the worst upstream, one that echoes. */
function echoingTransport(seen: CallOptions[]): BridgeTransport {
  const echo = (options: CallOptions | undefined): ToolResult => {
    seen.push(options ?? {});
    const credential = options?.contextValues?.get(upstreamCredentialKey);
    return {
      content: [{ type: "text", text: JSON.stringify({ metadata: options?.metadata ?? {}, credential }) }],
    };
  };
  return {
    callTool: async (_call, _target, options) => echo(options),
    readResource: async () => ({ contents: [] }),
    executeCode: async function* () {},
    provision: async () => ({ configurationUri: "", secretsUri: "", properties: [] }) as never,
    probeHealth: async (_target, options) => {
      seen.push(options ?? {});
      return { state: "serving" } as never;
    },
    close: async () => {},
  };
}

/** A token endpoint that issues `exchanged-<n>` tokens and records each request it got. */
function tokenEndpoint(answer?: (n: number) => Response) {
  const requests: { form: URLSearchParams; authorization: string | null }[] = [];
  const fetch = async (_input: string | URL, init?: RequestInit): Promise<Response> => {
    const form = new URLSearchParams(String(init?.body));
    requests.push({ form, authorization: new Headers(init?.headers).get("authorization") });
    const n = requests.length;
    if (answer) return answer(n);
    return Response.json({
      access_token: `exchanged-${n}`,
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: 300,
    });
  };
  return { fetch, requests };
}

const exchange: UpstreamAuth = {
  tokenExchange: {
    tokenEndpoint: "http://127.0.0.1:9/token",
    clientId: "trestle",
    clientSecret: CLIENT_SECRET,
    audience: "payments",
  },
};

const alice = callerPrincipal({ id: "alice", groups: ["finance"] });
const bob = callerPrincipal({ id: "bob" });
const staticCaller = callerPrincipal({ id: "ci-token" });

function callOptionsFor(
  principal: CallerPrincipal | undefined,
  metadata?: Record<string, string>,
): CallOptions {
  const contextValues = createContextValues();
  if (principal) contextValues.set(callerPrincipalKey, principal);
  return { contextValues, ...(metadata ? { metadata } : {}) };
}

function setup(
  services: UpstreamCredentialSources["services"],
  delivery: CredentialDelivery,
  fetch?: UpstreamCredentialSources["fetch"],
  extra: Partial<UpstreamCredentialSources> = {},
) {
  const seen: CallOptions[] = [];
  const credentials = createUpstreamCredentials({
    services,
    forwardAuthFor: () => null,
    bearerOf: (principal) => (principal.id === "ci-token" ? undefined : `${CALLER_TOKEN}-${principal.id}`),
    createTokenExchanger,
    ...(fetch ? { fetch } : {}),
    ...extra,
  });
  const transport = withUpstreamCredentials(echoingTransport(seen), credentials, delivery);
  return { transport, seen };
}

describe("the router's credential for an upstream", () => {
  it("puts a static credential on the call's metadata, over a value the call carried, and scrubs its echo", async () => {
    const { transport, seen } = setup(
      { payments: { upstreamAuth: { static: { value: "Bearer static-canary" } } } },
      "metadata",
    );
    const result = await transport.callTool(
      { tool: { uri: "payments://pay" } } as never,
      target("payments"),
      callOptionsFor(alice, { Authorization: `Bearer ${CALLER_TOKEN}` }),
    );
    expect(seen[0]?.metadata).toEqual({ authorization: "Bearer static-canary" });
    // The upstream echoed the credential: the client never sees it.
    expect(JSON.stringify(result)).not.toContain("static-canary");
    // A service without upstreamAuth gets nothing added.
    await transport.callTool({ tool: { uri: "x://y" } } as never, target("other"), callOptionsFor(alice));
    expect(seen[1]?.metadata).toBeUndefined();
  });

  it("exchanges each caller's own token for one meant for the upstream, once per principal while it lasts", async () => {
    const endpoint = tokenEndpoint();
    const { transport, seen } = setup({ payments: { upstreamAuth: exchange } }, "metadata", endpoint.fetch);
    await transport.callTool({} as never, target("payments"), callOptionsFor(alice));
    await transport.callTool({} as never, target("payments"), callOptionsFor(alice));
    await transport.callTool({} as never, target("payments"), callOptionsFor(bob));
    expect(seen.map((options) => options.metadata?.authorization)).toEqual([
      "Bearer exchanged-1",
      "Bearer exchanged-1",
      "Bearer exchanged-2",
    ]);
    expect(endpoint.requests).toHaveLength(2);
    const first = endpoint.requests[0];
    expect(first?.form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:token-exchange");
    expect(first?.form.get("subject_token")).toBe(`${CALLER_TOKEN}-alice`);
    expect(first?.form.get("audience")).toBe("payments");
    // The router authenticates itself (client_secret_basic by default).
    expect(first?.authorization).toBe(`Basic ${Buffer.from(`trestle:${CLIENT_SECRET}`).toString("base64")}`);
    // The caller's own token never goes upstream.
    expect(JSON.stringify(seen.map((options) => options.metadata))).not.toContain(CALLER_TOKEN);
  });

  it("carries the exchanged token in the call's context for an HTTP upstream (MCP, A2A), not in metadata", async () => {
    const endpoint = tokenEndpoint();
    const { transport, seen } = setup({ docs: { upstreamAuth: exchange } }, "headers", endpoint.fetch);
    const result = await transport.callTool({} as never, target("docs"), callOptionsFor(alice));
    expect(seen[0]?.contextValues?.get(upstreamCredentialKey)).toEqual({
      authorization: "Bearer exchanged-1",
    });
    expect(seen[0]?.metadata).toBeUndefined();
    expect(JSON.stringify(result)).not.toContain("exchanged-1");
  });

  it("refuses the call of a caller with no OAuth token, rather than send it without a credential", async () => {
    const endpoint = tokenEndpoint();
    const { transport, seen } = setup({ payments: { upstreamAuth: exchange } }, "metadata", endpoint.fetch);
    const refused = await transport
      .callTool({} as never, target("payments"), callOptionsFor(staticCaller))
      .catch((error: unknown) => error);
    expect(TrestleError.from(refused).code).toBe(Code.PermissionDenied);
    expect(TrestleError.from(refused).rawMessage).toMatch(/service 'payments' needs an OAuth caller/);
    expect(seen).toHaveLength(0);
    expect(endpoint.requests).toHaveLength(0);
  });

  it("makes no exchanger without OAuth, and a forward's exchange still refuses a caller with no OAuth token", async () => {
    const endpoint = tokenEndpoint();
    const seen: CallOptions[] = [];
    // No createTokenExchanger: the router without OAuth (and without @trestle/auth loaded).
    const credentials = createUpstreamCredentials({
      services: {},
      forwardAuthFor: (t) => (t.serviceName === "mcp-docs" ? exchange : null),
      bearerOf: () => undefined,
      fetch: endpoint.fetch,
    });
    const transport = withUpstreamCredentials(echoingTransport(seen), credentials, "headers");
    const refused = await transport
      .callTool({} as never, target("mcp-docs"), callOptionsFor(staticCaller))
      .catch((error: unknown) => error);
    expect(TrestleError.from(refused).code).toBe(Code.PermissionDenied);
    expect(TrestleError.from(refused).rawMessage).toMatch(/service 'mcp-docs' needs an OAuth caller/);
    expect(seen).toHaveLength(0);
    expect(endpoint.requests).toHaveLength(0);
  });

  it("refuses the call when the token endpoint turns the exchange down, with no fallback and no secret", async () => {
    const endpoint = tokenEndpoint(() =>
      Response.json(
        { error: "invalid_grant", error_description: `subject ${CALLER_TOKEN}-alice is not allowed` },
        { status: 400 },
      ),
    );
    const { transport, seen } = setup({ payments: { upstreamAuth: exchange } }, "metadata", endpoint.fetch);
    const refused = TrestleError.from(
      await transport
        .callTool({} as never, target("payments"), callOptionsFor(alice, { authorization: "Bearer shared" }))
        .catch((error: unknown) => error),
    );
    expect(refused.code).toBe(Code.PermissionDenied);
    expect(refused.rawMessage).toMatch(/token exchange for service 'payments' failed.*invalid_grant/);
    expect(refused.rawMessage).not.toContain(CALLER_TOKEN);
    expect(refused.rawMessage).not.toContain(CLIENT_SECRET);
    expect(seen).toHaveLength(0);
  });

  it("reports an unreachable token endpoint as Unavailable", async () => {
    const endpoint = tokenEndpoint(() => new Response("down", { status: 503 }));
    const { transport } = setup({ payments: { upstreamAuth: exchange } }, "metadata", endpoint.fetch);
    const refused = TrestleError.from(
      await transport
        .callTool({} as never, target("payments"), callOptionsFor(alice))
        .catch((error: unknown) => error),
    );
    expect(refused.code).toBe(Code.Unavailable);
  });

  it("sends a health probe (made for no caller) without an exchanged token, and a static one with it", async () => {
    const endpoint = tokenEndpoint();
    const { transport, seen } = setup(
      {
        payments: { upstreamAuth: exchange },
        ledger: { upstreamAuth: { static: { header: "x-api-key", value: "ledger-key" } } },
      },
      "metadata",
      endpoint.fetch,
    );
    await transport.probeHealth(target("payments"), {});
    await transport.probeHealth(target("ledger"), {});
    expect(seen[0]?.metadata).toBeUndefined();
    expect(seen[1]?.metadata).toEqual({ "x-api-key": "ledger-key" });
    expect(endpoint.requests).toHaveLength(0);
  });

  it("gives a configured credential only to instances that may receive what is configured for the name", async () => {
    const { transport, seen } = setup(
      { payments: { upstreamAuth: { static: { value: "Bearer owner-only" } } } },
      "metadata",
      undefined,
      { mayReceiveConfigured: (t) => t.id !== "payments-1" },
    );
    await transport.callTool({} as never, target("payments"), callOptionsFor(alice));
    expect(seen[0]?.metadata).toBeUndefined();
  });

  it("refuses an unusable token exchange at start, naming the key", () => {
    expect(() =>
      createUpstreamCredentials({
        services: {
          payments: {
            upstreamAuth: {
              tokenExchange: { tokenEndpoint: "http://idp.example/token", clientId: "t", clientSecret: "s" },
            },
          },
        },
        forwardAuthFor: () => null,
        bearerOf: () => undefined,
        createTokenExchanger,
      }),
    ).toThrow(/services\.payments\.upstreamAuth\.tokenExchange/);
  });
});

describe("a forward's upstream credential", () => {
  it("puts a static credential among the connection's headers, and keeps an exchange for the calls", () => {
    const staticForward = connectionUpstream({
      kind: "http",
      url: "https://mcp.example/mcp",
      headers: { Authorization: "Bearer old", "x-team": "a" },
      upstreamAuth: { static: { value: "Bearer new" } },
    });
    expect(staticForward).toEqual({
      kind: "http",
      url: "https://mcp.example/mcp",
      headers: { "x-team": "a", authorization: "Bearer new" },
    });
    const exchanging = { kind: "a2a" as const, url: "https://agent.example/", upstreamAuth: exchange };
    expect(connectionUpstream(exchanging)).toEqual({ kind: "a2a", url: "https://agent.example/" });
    expect(perCallUpstreamAuth(exchanging)).toBe(exchange);
    expect(perCallUpstreamAuth(staticForward)).toBeUndefined();
  });

  it("exchanges for a forward's calls by the forward's own configuration", async () => {
    const endpoint = tokenEndpoint();
    const seen: CallOptions[] = [];
    const credentials = createUpstreamCredentials({
      services: {},
      forwardAuthFor: (t) => (t.serviceName === "mcp-docs" ? exchange : null),
      bearerOf: (principal) => `${CALLER_TOKEN}-${principal.id}`,
      createTokenExchanger,
      fetch: endpoint.fetch,
    });
    const transport = withUpstreamCredentials(echoingTransport(seen), credentials, "headers");
    await transport.callTool({} as never, target("mcp-docs"), callOptionsFor(bob));
    expect(seen[0]?.contextValues?.get(upstreamCredentialKey)).toEqual({
      authorization: "Bearer exchanged-1",
    });
    expect(endpoint.requests[0]?.form.get("subject_token")).toBe(`${CALLER_TOKEN}-bob`);
    await transport.callTool({} as never, target("mcp-docs"), callOptionsFor(bob));
    expect(endpoint.requests).toHaveLength(1);
    // Released (the forward was removed): its exchanger and cached tokens go; a forward made again exchanges anew.
    transport.release?.(target("mcp-docs"));
    await transport.callTool({} as never, target("mcp-docs"), callOptionsFor(bob));
    expect(endpoint.requests).toHaveLength(2);
    expect(seen[2]?.contextValues?.get(upstreamCredentialKey)).toEqual({
      authorization: "Bearer exchanged-2",
    });
  });
});
