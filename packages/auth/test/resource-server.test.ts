import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthError,
  createOAuthVerifier,
  createResourceServer,
  principalBearer,
  type ResourceServer,
} from "../src/index.js";
import { startTestIssuer, type TestIssuer, type TestKey } from "./support/test-issuer.js";

const PUBLIC_URL = "https://MCP.example.com/";
const OPS_TOKEN = "ops-static-token-0123456789";

let idp: TestIssuer;
let key: TestKey;
let server: ResourceServer;

beforeAll(async () => {
  idp = await startTestIssuer();
  key = await idp.addKey("ES256");
  server = createResourceServer({
    publicUrl: PUBLIC_URL,
    tokens: [{ name: "ops", token: OPS_TOKEN, scopes: ["admin"], groups: ["operators"] }],
    oauth: createOAuthVerifier({ issuers: [{ issuer: idp.issuer }] }),
  });
});
afterAll(async () => {
  await idp.close();
});

async function rejection(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AuthError.is(error)).toBe(true);
  return error as AuthError;
}

describe("createResourceServer: endpoints and metadata", () => {
  it("describes an endpoint by its canonical URI, with its path-inserted metadata", () => {
    const mcp = server.endpoint("/mcp", { scopes: ["mcp"] });
    expect(mcp.resource).toBe("https://mcp.example.com/mcp");
    expect(mcp.audiences).toEqual(["https://mcp.example.com/mcp", "https://mcp.example.com"]);
    expect(mcp.metadataUrl).toBe("https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
    expect(mcp.metadata).toEqual({
      resource: "https://mcp.example.com/mcp",
      authorization_servers: [idp.issuer],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
      resource_name: "Trestle",
    });
    const root = server.endpoint("", { scopes: ["mcp"] });
    expect(root.metadataUrl).toBe("https://mcp.example.com/.well-known/oauth-protected-resource");
    expect(root.audiences).toEqual(["https://mcp.example.com"]);
  });

  it("describes an endpoint once per path and scopes, frozen, and others apart", () => {
    const mcp = server.endpoint("/mcp", { scopes: ["mcp"] });
    expect(server.endpoint("/mcp", { scopes: ["mcp"] })).toBe(mcp);
    expect(Object.isFrozen(mcp.metadata)).toBe(true);
    expect(Object.isFrozen(mcp.metadata?.scopes_supported)).toBe(true);
    const admin = server.endpoint("/mcp", { scopes: ["admin"] });
    expect(admin.scopes).toEqual(["admin"]);
    expect(server.endpoint("/team-a/mcp", { scopes: ["mcp"] }).resource).toBe(
      "https://mcp.example.com/team-a/mcp",
    );
    // Many paths (a request names its namespace) are each described right, whatever was kept.
    for (let i = 0; i < 600; i++)
      expect(server.endpoint(`/ns-${i}/mcp`, { scopes: ["mcp"] }).resource).toBe(
        `https://mcp.example.com/ns-${i}/mcp`,
      );
    expect(server.endpoint("/mcp", { scopes: ["mcp"] }).resource).toBe("https://mcp.example.com/mcp");
  });

  it("finds the endpoint a well-known request is for, with or without publicUrl's path prefix", () => {
    expect(server.metadataEndpointPath("/.well-known/oauth-protected-resource")).toBe("");
    expect(server.metadataEndpointPath("/.well-known/oauth-protected-resource/team-a/mcp")).toBe(
      "/team-a/mcp",
    );
    expect(server.metadataEndpointPath("/.well-known/oauth-protected-resourceX")).toBeUndefined();
    expect(server.metadataEndpointPath("/mcp")).toBeUndefined();
    const prefixed = createResourceServer({
      publicUrl: "https://h.example.com/trestle",
      oauth: createOAuthVerifier({ issuers: [{ issuer: idp.issuer }] }),
    });
    expect(prefixed.endpoint("/mcp", { scopes: ["mcp"] }).metadataUrl).toBe(
      "https://h.example.com/.well-known/oauth-protected-resource/trestle/mcp",
    );
    expect(prefixed.metadataEndpointPath("/.well-known/oauth-protected-resource/trestle/mcp")).toBe("/mcp");
    expect(prefixed.metadataEndpointPath("/.well-known/oauth-protected-resource/trestle")).toBe("");
    expect(prefixed.metadataEndpointPath("/.well-known/oauth-protected-resource/mcp")).toBe("/mcp");
  });

  it("has no metadata and a bare challenge without OAuth", async () => {
    const staticOnly = createResourceServer({
      publicUrl: PUBLIC_URL,
      tokens: [{ name: "a", token: "tok-a", scopes: ["mcp"] }],
    });
    const mcp = staticOnly.endpoint("/mcp", { scopes: ["mcp"] });
    expect(mcp.metadata).toBeUndefined();
    const error = await rejection(staticOnly.authenticate("Bearer nope", mcp));
    expect(error.challenge).toBe(
      'Bearer error="invalid_token", scope="mcp", error_description="The bearer token is not valid"',
    );
  });
});

describe("createResourceServer: authenticate", () => {
  const mcp = () => server.endpoint("/mcp", { scopes: ["mcp"] });

  it("answers a request without a token with 401 and a challenge naming the metadata and the scope", async () => {
    const error = await rejection(server.authenticate(undefined, mcp()));
    expect(error).toMatchObject({ code: "missing_token", status: 401 });
    expect(error.challenge).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"',
    );
    const basic = await rejection(server.authenticate("Basic dXNlcjpwYXNz", mcp()));
    expect(basic.challenge).toBe(error.challenge);
  });

  it("answers a bad token with 401, error=invalid_token and a description", async () => {
    const token = await idp.sign(key, { sub: "alice", aud: "https://mcp.example.com/other" });
    const error = await rejection(server.authenticate(`Bearer ${token}`, mcp()));
    expect(error.status).toBe(401);
    expect(error.challenge).toBe(
      'Bearer error="invalid_token", scope="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error_description="The token was not issued for this resource (its audience does not name it)"',
    );
  });

  it("accepts a static token beside OAuth; its principal is the token's name and carries no bearer", async () => {
    const principal = await server.authenticate(`bearer ${OPS_TOKEN}`, mcp());
    expect(principal).toMatchObject({
      kind: "token",
      id: "token:ops",
      name: "ops",
      scopes: ["admin"],
      groups: ["operators"],
    });
    expect(principalBearer(principal)).toBeUndefined();
  });

  it("accepts an OAuth token for the endpoint or for the router as a whole, not for a sibling endpoint", async () => {
    const forEndpoint = await idp.sign(key, {
      sub: "alice",
      aud: "https://mcp.example.com/mcp",
      scope: "mcp",
    });
    expect((await server.authenticate(`Bearer ${forEndpoint}`, mcp())).name).toBe("alice");
    const forRouter = await idp.sign(key, { sub: "alice", aud: "https://mcp.example.com", scope: "mcp" });
    expect((await server.authenticate(`Bearer ${forRouter}`, mcp())).name).toBe("alice");
    const teamB = server.endpoint("/team-b/mcp", { scopes: ["mcp"] });
    expect((await rejection(server.authenticate(`Bearer ${forEndpoint}`, teamB))).status).toBe(401);
  });

  it('treats "Bearer" with no token as no token', async () => {
    const error = await rejection(server.authenticate("Bearer", mcp()));
    expect(error.code).toBe("missing_token");
  });
});

describe("createResourceServer: authorize", () => {
  it("answers insufficient scope with 403 and one challenge naming every scope the operation needs", async () => {
    const api = server.endpoint("/api", { scopes: ["admin"] });
    const token = await idp.sign(key, { sub: "dave", aud: "https://mcp.example.com", scope: "mcp" });
    const principal = await server.authenticate(`Bearer ${token}`, api);
    let error: unknown;
    try {
      server.authorize(principal, api, ["mcp", "register"]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect((error as AuthError).challenge).toBe(
      'Bearer error="insufficient_scope", scope="mcp register", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/api", error_description="The token of \'dave\' does not grant the scope register needed here"',
    );
  });

  it("lets admin through every scope check", async () => {
    const principal = await server.authenticate(
      `Bearer ${OPS_TOKEN}`,
      server.endpoint("/api", { scopes: ["admin"] }),
    );
    expect(() =>
      server.authorize(principal, server.endpoint("/mcp", { scopes: ["mcp"] }), ["mcp", "register"]),
    ).not.toThrow();
  });

  it("names mapped OAuth scope values in challenges and scopes_supported", async () => {
    const mapped = createResourceServer({
      publicUrl: PUBLIC_URL,
      oauth: createOAuthVerifier({
        issuers: [{ issuer: idp.issuer }],
        scopeMap: { "trestle:use": ["mcp"], "trestle:all": ["mcp", "admin", "register"] },
      }),
    });
    const mcp = mapped.endpoint("/mcp", { scopes: ["mcp"] });
    expect(mcp.metadata?.scopes_supported).toEqual(["trestle:use"]);
    expect(mapped.challenge(mcp)).toContain('scope="trestle:use"');
  });
});
