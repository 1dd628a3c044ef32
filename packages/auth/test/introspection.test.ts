import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthError, createOAuthVerifier, type IntrospectionConfig, principalBearer } from "../src/index.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";

const RESOURCE = "https://mcp.example.com/mcp";
const OPAQUE = "opaque-token-7f3a9c0d2b";
const SECRET = "introspection-secret";

let idp: TestIssuer;
beforeEach(async () => {
  idp = await startTestIssuer();
});
afterEach(async () => {
  await idp.close();
});

function verifier(introspection: Partial<IntrospectionConfig> = {}, now?: () => number) {
  return createOAuthVerifier({
    issuers: [
      { issuer: idp.issuer, introspection: { clientId: "trestle", clientSecret: SECRET, ...introspection } },
    ],
    ...(now ? { now } : {}),
  });
}

async function rejection(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AuthError.is(error)).toBe(true);
  return error as AuthError;
}

const active = (extra: Record<string, unknown> = {}) => ({
  status: 200,
  body: {
    active: true,
    sub: "carol",
    aud: RESOURCE,
    iss: idp.issuer,
    scope: "mcp",
    exp: Math.floor(Date.now() / 1000) + 300,
    ...extra,
  },
});

describe("createOAuthVerifier: RFC 7662 introspection of opaque tokens", () => {
  it("introspects at the discovered endpoint with client_secret_basic and maps the answer", async () => {
    idp.onIntrospect(() => active({ groups: ["finance"] }));
    const principal = await verifier().verify(OPAQUE, RESOURCE);
    expect(principal).toMatchObject({ kind: "oauth", name: "carol", scopes: ["mcp"], groups: ["finance"] });
    expect(principalBearer(principal)).toBe(OPAQUE);
    const [request] = idp.introspectRequests;
    expect(request?.form.get("token")).toBe(OPAQUE);
    expect(request?.form.get("token_type_hint")).toBe("access_token");
    expect(request?.form.has("client_secret")).toBe(false);
    expect(request?.authorization).toBe(`Basic ${Buffer.from(`trestle:${SECRET}`).toString("base64")}`);
  });

  it("sends client_secret_post when configured", async () => {
    idp.onIntrospect(() => active());
    await verifier({ authMethod: "client_secret_post" }).verify(OPAQUE, RESOURCE);
    const [request] = idp.introspectRequests;
    expect(request?.authorization).toBeUndefined();
    expect(request?.form.get("client_id")).toBe("trestle");
    expect(request?.form.get("client_secret")).toBe(SECRET);
  });

  it("caches an active answer: one request for many verifications, and concurrent ones share it", async () => {
    idp.onIntrospect(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return active();
    });
    const v = verifier();
    await Promise.all([v.verify(OPAQUE, RESOURCE), v.verify(OPAQUE, RESOURCE), v.verify(OPAQUE, RESOURCE)]);
    await v.verify(OPAQUE, RESOURCE);
    await v.verify(OPAQUE, "https://mcp.example.com/team-a/mcp").catch(() => undefined);
    expect(idp.counts.introspect).toBe(1);
  });

  it("asks again once the cache time has passed, and never serves an answer past the token's exp", async () => {
    let clock = Date.now();
    const exp = Math.floor(clock / 1000) + 20;
    idp.onIntrospect(() => active({ exp }));
    const v = verifier({}, () => clock);
    await v.verify(OPAQUE, RESOURCE);
    clock += 10_000;
    await v.verify(OPAQUE, RESOURCE);
    expect(idp.counts.introspect).toBe(1);
    clock = (exp + 60) * 1000;
    idp.onIntrospect(() => ({ status: 200, body: { active: false } }));
    expect((await rejection(v.verify(OPAQUE, RESOURCE))).message).toBe("The token is not active");
    expect(idp.counts.introspect).toBe(2);
  });

  it("refuses an inactive token (401) and remembers that briefly", async () => {
    const v = verifier();
    const error = await rejection(v.verify(OPAQUE, RESOURCE));
    expect(error).toMatchObject({ code: "invalid_token", status: 401, message: "The token is not active" });
    await rejection(v.verify(OPAQUE, RESOURCE));
    expect(idp.counts.introspect).toBe(1);
  });

  it("refuses an active token for another audience, or with no audience", async () => {
    idp.onIntrospect(() => active({ aud: "https://elsewhere.example.com" }));
    expect((await rejection(verifier().verify(OPAQUE, RESOURCE))).message).toMatch(/audience/);
    idp.onIntrospect(() => active({ aud: undefined }));
    expect((await rejection(verifier().verify("another-opaque", RESOURCE))).message).toMatch(/audience/);
  });

  it("accepts an answer without aud only when requireAudience is false", async () => {
    idp.onIntrospect(() => active({ aud: undefined }));
    expect((await verifier({ requireAudience: false }).verify(OPAQUE, RESOURCE)).name).toBe("carol");
  });

  it("refuses an answer from another issuer, an expired one, and one not valid yet", async () => {
    const now = Math.floor(Date.now() / 1000);
    idp.onIntrospect(() => active({ iss: "https://other.example.com" }));
    expect((await rejection(verifier().verify("t1", RESOURCE))).message).toMatch(/issuer/);
    idp.onIntrospect(() => active({ exp: now - 120 }));
    expect((await rejection(verifier().verify("t2", RESOURCE))).message).toBe("The token has expired");
    idp.onIntrospect(() => active({ nbf: now + 120 }));
    expect((await rejection(verifier().verify("t3", RESOURCE))).message).toBe("The token is not valid yet");
  });

  it("answers 503 (not 401) when the endpoint refuses the router's credentials, without quoting them", async () => {
    idp.onIntrospect(() => ({ status: 401, body: { error: "invalid_client" } }));
    const error = await rejection(verifier().verify(OPAQUE, RESOURCE));
    expect(error).toMatchObject({ code: "unavailable", status: 503 });
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain(OPAQUE);
  });

  it("refuses an opaque token when no issuer introspects", async () => {
    const v = createOAuthVerifier({ issuers: [{ issuer: idp.issuer }] });
    expect((await rejection(v.verify(OPAQUE, RESOURCE))).message).toMatch(/not a JWT/);
    expect(idp.counts.introspect + idp.counts.discovery).toBe(0);
  });
});
