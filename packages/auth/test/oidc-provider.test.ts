import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError, createOAuthVerifier, createResourceServer, type ResourceServer } from "../src/index.js";

// A real OpenID provider (panva's oidc-provider, the certified implementation) on a loopback port: its tokens,
// its discovery document, its JWKS and its introspection endpoint, not ones these tests wrote.
const PUBLIC_URL = "https://mcp.example.com";
const JWT_RESOURCE = `${PUBLIC_URL}/mcp`;
const OPAQUE_RESOURCE = `${PUBLIC_URL}/a2a`;

let server: Server;
let issuer: string;
let resourceServer: ResourceServer;

beforeAll(async () => {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "op-key-1", alg: "ES256", use: "sig" };
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = (id: string) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ["client_credentials"],
    redirect_uris: [],
    response_types: [],
    id_token_signed_response_alg: "ES256",
  });
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: [client("agent"), client("trestle")],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => JWT_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: "mcp admin",
          audience: resource,
          accessTokenFormat: resource === OPAQUE_RESOURCE ? "opaque" : "jwt",
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
  });
  server.on("request", provider.callback());
  resourceServer = createResourceServer({
    publicUrl: PUBLIC_URL,
    oauth: createOAuthVerifier({
      issuers: [{ issuer, introspection: { clientId: "trestle", clientSecret: "trestle-secret" } }],
    }),
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function clientCredentialsToken(resource: string, scope = "mcp"): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from("agent:agent-secret").toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
  });
  const body = (await response.json()) as { access_token?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.access_token as string;
}

describe("against oidc-provider", () => {
  it("verifies a JWT access token it issued (discovery, JWKS, aud, scope)", async () => {
    const token = await clientCredentialsToken(JWT_RESOURCE);
    expect(token.split(".")).toHaveLength(3);
    const mcp = resourceServer.endpoint("/mcp", { scopes: ["mcp"] });
    const principal = await resourceServer.authenticate(`Bearer ${token}`, mcp);
    expect(principal).toMatchObject({ kind: "oauth", name: "agent", scopes: ["mcp"], issuer });
    expect(() => resourceServer.authorize(principal, mcp)).not.toThrow();
    expect(() => resourceServer.authorize(principal, mcp, ["admin"])).toThrow(AuthError);
  });

  it("refuses its token at an endpoint the token was not issued for", async () => {
    const token = await clientCredentialsToken(JWT_RESOURCE);
    const other = resourceServer.endpoint("/team-b/mcp", { scopes: ["mcp"] });
    const error = await resourceServer.authenticate(`Bearer ${token}`, other).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid_token", status: 401 });
    expect((error as AuthError).challenge).toContain('error="invalid_token"');
  });

  it("introspects an opaque access token it issued", async () => {
    const token = await clientCredentialsToken(OPAQUE_RESOURCE);
    expect(token.split(".")).toHaveLength(1);
    const a2a = resourceServer.endpoint("/a2a", { scopes: ["mcp"] });
    const principal = await resourceServer.authenticate(`Bearer ${token}`, a2a);
    expect(principal).toMatchObject({ kind: "oauth", name: "agent", scopes: ["mcp"] });
  });
});
