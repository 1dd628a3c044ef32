import { exportSPKI, SignJWT } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthError, createOAuthVerifier, type OAuthVerifierOptions, principalBearer } from "../src/index.js";
import { base64url, startTestIssuer, type TestIssuer, type TestKey } from "./support/test-issuer.js";

const RESOURCE = "https://mcp.example.com/mcp";

let idp: TestIssuer;
let key: TestKey;

beforeEach(async () => {
  idp = await startTestIssuer();
  key = await idp.addKey("RS256");
});
afterEach(async () => {
  await idp.close();
});

function verifier(extra: Partial<OAuthVerifierOptions> = {}) {
  return createOAuthVerifier({ issuers: [{ issuer: idp.issuer }], jwksCooldownMs: 0, ...extra });
}

async function rejection(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AuthError.is(error), `expected an AuthError, got ${String(error)}`).toBe(true);
  return error as AuthError;
}

describe("createOAuthVerifier: JWTs", () => {
  it("accepts a token for this resource and maps its claims to a principal", async () => {
    const token = await idp.sign(key, {
      sub: "alice",
      aud: RESOURCE,
      scope: "mcp email",
      groups: ["team-a", "dev"],
    });
    const principal = await verifier().verify(token, RESOURCE);
    expect(principal).toMatchObject({
      kind: "oauth",
      id: `${idp.issuer}#alice`,
      name: "alice",
      scopes: ["mcp"],
      tokenScopes: ["mcp", "email"],
      groups: ["team-a", "dev"],
      issuer: idp.issuer,
    });
    expect(principal.claims.sub).toBe("alice");
    expect(typeof principal.expiresAt).toBe("number");
    expect(principalBearer(principal)).toBe(token);
    expect(JSON.stringify(principal)).not.toContain(token);
    expect(idp.counts.discovery).toBe(1);
  });

  it("accepts ES256 and EdDSA keys published beside RSA ones", async () => {
    const ec = await idp.addKey("ES256");
    const ed = await idp.addKey("EdDSA");
    const v = verifier();
    for (const k of [ec, ed]) {
      const principal = await v.verify(await idp.sign(k, { sub: k.alg, aud: RESOURCE }), RESOURCE);
      expect(principal.name).toBe(k.alg);
    }
  });

  it("reads scp arrays, dotted group paths, a configured principal claim and maps scopes", async () => {
    const v = createOAuthVerifier({
      issuers: [
        { issuer: idp.issuer, claims: { principal: "email", groups: "realm_access.roles", scopes: "scp" } },
      ],
      scopeMap: { "trestle:use": ["mcp"], "trestle:operate": ["admin"] },
    });
    const token = await idp.sign(key, {
      sub: "u-1",
      email: "bob@example.com",
      aud: [RESOURCE, "other"],
      scp: ["trestle:use", "mcp", "register"],
      realm_access: { roles: ["ops"] },
    });
    const principal = await v.verify(token, RESOURCE);
    expect(principal.name).toBe("bob@example.com");
    expect(principal.groups).toEqual(["ops"]);
    // The map replaces the default: "register" in the token grants nothing here, "trestle:use" grants mcp.
    expect(principal.scopes).toEqual(["mcp"]);
    expect(principal.tokenScopes).toEqual(["trestle:use", "mcp", "register"]);
    expect(v.scopeMapping.oauthScopesFor(["mcp", "admin"])).toEqual(["trestle:use", "trestle:operate"]);
  });

  it("refuses a token for another audience", async () => {
    const token = await idp.sign(key, { sub: "alice", aud: "https://other.example.com/mcp" });
    const error = await rejection(verifier().verify(token, RESOURCE));
    expect(error).toMatchObject({ code: "invalid_token", status: 401 });
    expect(error.message).toMatch(/not issued for this resource/);
  });

  it("refuses a token without an audience", async () => {
    const token = await idp.sign(key, { sub: "alice" });
    expect((await rejection(verifier().verify(token, RESOURCE))).code).toBe("invalid_token");
  });

  it("uses an issuer's configured audiences instead of the resource URI", async () => {
    const v = createOAuthVerifier({ issuers: [{ issuer: idp.issuer, audiences: ["api://trestle"] }] });
    const good = await idp.sign(key, { sub: "a", aud: "api://trestle" });
    expect((await v.verify(good, RESOURCE)).name).toBe("a");
    const resourceOnly = await idp.sign(key, { sub: "a", aud: RESOURCE });
    expect((await rejection(v.verify(resourceOnly, RESOURCE))).message).toMatch(/audience/);
  });

  it("refuses an expired token, beyond the clock tolerance", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await idp.sign(key, { sub: "alice", aud: RESOURCE, iat: now - 600, exp: now - 60 });
    const error = await rejection(verifier({ clockToleranceSeconds: 30 }).verify(token, RESOURCE));
    expect(error).toMatchObject({ code: "invalid_token", status: 401, message: "The token has expired" });
  });

  it("accepts a token expired by less than the clock tolerance", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await idp.sign(key, { sub: "alice", aud: RESOURCE, iat: now - 600, exp: now - 10 });
    expect((await verifier({ clockToleranceSeconds: 30 }).verify(token, RESOURCE)).name).toBe("alice");
  });

  it("refuses a token whose nbf is in the future", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await idp.sign(key, { sub: "alice", aud: RESOURCE, nbf: now + 120 });
    expect((await rejection(verifier().verify(token, RESOURCE))).message).toBe("The token is not valid yet");
  });

  it("refuses a token without exp", async () => {
    const token = await new SignJWT({ iss: idp.issuer, sub: "alice", aud: RESOURCE })
      .setProtectedHeader({ alg: "RS256", kid: key.kid })
      .sign(key.privateKey);
    expect((await rejection(verifier().verify(token, RESOURCE))).message).toMatch(/no expiry/);
  });

  it("refuses a token from an issuer that is not configured, without fetching anything for it", async () => {
    const token = await idp.sign(key, { iss: "https://evil.example.com", sub: "alice", aud: RESOURCE });
    const error = await rejection(verifier().verify(token, RESOURCE));
    expect(error.message).toBe("The token's issuer is not accepted");
    expect(idp.counts.jwks + idp.counts.discovery).toBe(0);
  });

  it("refuses a token that names the trusted issuer but is signed by another party's key", async () => {
    const attacker = await startTestIssuer();
    try {
      await attacker.addKey("RS256", false); // the shared first key pair; the attacker's own is the next one
      const foreign = await attacker.addKey("RS256");
      // Same kid as the real key: only the signature check can tell.
      const token = await attacker.sign(
        { ...foreign, kid: key.kid },
        { iss: idp.issuer, sub: "alice", aud: RESOURCE },
      );
      expect((await rejection(verifier().verify(token, RESOURCE))).message).toBe(
        "The token's signature is not valid",
      );
    } finally {
      await attacker.close();
    }
  });

  it("refuses a key the issuer does not publish, after fetching the key set again once", async () => {
    const unpublished = await idp.addKey("RS256", false);
    const v = verifier();
    await v.verify(await idp.sign(key, { sub: "warm", aud: RESOURCE }), RESOURCE);
    expect(idp.counts.jwks).toBe(1);
    const token = await idp.sign(unpublished, { sub: "alice", aud: RESOURCE });
    const error = await rejection(v.verify(token, RESOURCE));
    expect(error).toMatchObject({ code: "invalid_token", status: 401 });
    expect(error.message).toMatch(/does not publish/);
    expect(idp.counts.jwks).toBe(2);
  });

  it("does not refetch keys for unknown kids more often than the cooldown allows", async () => {
    const v = verifier({ jwksCooldownMs: 60_000 });
    await v.verify(await idp.sign(key, { sub: "warm", aud: RESOURCE }), RESOURCE);
    for (let i = 0; i < 5; i++) {
      const stranger = await idp.addKey("RS256", false);
      await rejection(v.verify(await idp.sign(stranger, { sub: `x${i}`, aud: RESOURCE }), RESOURCE));
    }
    expect(idp.counts.jwks).toBe(1);
  });

  it("picks up a rotated key: a token signed with a newly published key is accepted after one refetch", async () => {
    const v = verifier();
    await v.verify(await idp.sign(key, { sub: "before", aud: RESOURCE }), RESOURCE);
    const next = await idp.addKey("ES256", false);
    idp.publish(next);
    const principal = await v.verify(await idp.sign(next, { sub: "after", aud: RESOURCE }), RESOURCE);
    expect(principal.name).toBe("after");
    expect(idp.counts.jwks).toBe(2);
  });

  it('refuses alg "none"', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: idp.issuer, sub: "alice", aud: RESOURCE, exp: now + 300 };
    const token = `${base64url({ alg: "none", typ: "JWT" })}.${base64url(claims)}.`;
    const error = await rejection(verifier().verify(token, RESOURCE));
    expect(error).toMatchObject({ code: "invalid_token", status: 401 });
  });

  it("refuses HS256 signed with the issuer's public key as the secret", async () => {
    const pem = await exportSPKI(
      (await import("node:crypto")).createPublicKey({ key: key.publicJwk as never, format: "jwk" }) as never,
    );
    const now = Math.floor(Date.now() / 1000);
    for (const secret of [pem, JSON.stringify(key.publicJwk), String(key.publicJwk.n)]) {
      const token = await new SignJWT({ iss: idp.issuer, sub: "alice", aud: RESOURCE, exp: now + 300 })
        .setProtectedHeader({ alg: "HS256", kid: key.kid })
        .sign(new TextEncoder().encode(secret));
      const error = await rejection(verifier().verify(token, RESOURCE));
      expect(error).toMatchObject({
        code: "invalid_token",
        message: "The token's signing algorithm is not accepted",
      });
    }
  });

  it("refuses an algorithm left out of the issuer's allowlist", async () => {
    const ec = await idp.addKey("ES256");
    const v = createOAuthVerifier({ issuers: [{ issuer: idp.issuer, algorithms: ["RS256"] }] });
    const error = await rejection(v.verify(await idp.sign(ec, { sub: "a", aud: RESOURCE }), RESOURCE));
    expect(error.message).toBe("The token's signing algorithm is not accepted");
  });

  it("refuses a token with no principal claim", async () => {
    const token = await idp.sign(key, { aud: RESOURCE });
    expect((await rejection(verifier().verify(token, RESOURCE))).message).toMatch(/"sub" claim/);
  });

  it("refuses a malformed or oversized token before any request", async () => {
    const v = verifier();
    expect((await rejection(v.verify("a".repeat(20_000), RESOURCE))).code).toBe("invalid_token");
    expect((await rejection(v.verify("eyJ.not.jwt", RESOURCE))).code).toBe("invalid_token");
    expect(idp.counts.jwks + idp.counts.discovery).toBe(0);
  });

  it("reuses a verified principal, but never past the token's expiry", async () => {
    let clock = Date.now();
    const v = verifier({ now: () => clock, clockToleranceSeconds: 0 });
    const exp = Math.floor(clock / 1000) + 20;
    const token = await idp.sign(key, { sub: "alice", aud: RESOURCE, exp });
    const first = await v.verify(token, RESOURCE);
    expect(await v.verify(token, RESOURCE)).toBe(first);
    clock = (exp + 1) * 1000;
    expect((await rejection(v.verify(token, RESOURCE))).message).toBe("The token has expired");
  });

  it("keeps cached results per resource: a token for /mcp is not accepted at another resource from the cache", async () => {
    const v = verifier();
    const token = await idp.sign(key, { sub: "alice", aud: RESOURCE });
    await v.verify(token, RESOURCE);
    expect((await rejection(v.verify(token, "https://mcp.example.com/team-b/mcp"))).message).toMatch(
      /audience/,
    );
  });
});

describe("createOAuthVerifier: discovery and availability", () => {
  it("discovers an issuer with a path through OpenID Connect path insertion", async () => {
    const tenant = await startTestIssuer({ issuerPath: "/tenant1", discovery: "oidc" });
    try {
      const k = await tenant.addKey("ES256");
      const v = createOAuthVerifier({ issuers: [{ issuer: tenant.issuer }] });
      const principal = await v.verify(await tenant.sign(k, { sub: "t", aud: RESOURCE }), RESOURCE);
      expect(principal.issuer).toBe(`${tenant.origin}/tenant1`);
    } finally {
      await tenant.close();
    }
  });

  it("never uses a discovery document that names another issuer (503, and says why)", async () => {
    const mixup = await startTestIssuer({ announcedIssuer: "https://honest.example.com" });
    try {
      const k = await mixup.addKey();
      const v = createOAuthVerifier({ issuers: [{ issuer: mixup.issuer }] });
      const error = await rejection(v.verify(await mixup.sign(k, { sub: "t", aud: RESOURCE }), RESOURCE));
      expect(error).toMatchObject({ code: "unavailable", status: 503 });
      expect(error.message).toMatch(/names the issuer "https:\/\/honest.example.com"/);
      expect(mixup.counts.jwks).toBe(0);
    } finally {
      await mixup.close();
    }
  });

  it("skips discovery when jwksUri is configured", async () => {
    const v = createOAuthVerifier({ issuers: [{ issuer: idp.issuer, jwksUri: `${idp.origin}/jwks` }] });
    await v.verify(await idp.sign(key, { sub: "a", aud: RESOURCE }), RESOURCE);
    expect(idp.counts.discovery).toBe(0);
  });

  it("answers 503 when the issuer cannot be reached, and fails fast until the retry delay passes", async () => {
    const token = await idp.sign(key, { sub: "a", aud: RESOURCE });
    await idp.close();
    let clock = Date.now();
    const v = verifier({ now: () => clock, discoveryRetryMs: 5000, requestTimeoutMs: 1000 });
    const first = await rejection(v.verify(token, RESOURCE));
    expect(first).toMatchObject({ code: "unavailable", status: 503 });
    const again = await rejection(v.verify(token, RESOURCE));
    expect(again).toBe(first);
    clock += 6000;
    expect(await rejection(v.verify(token, RESOURCE))).not.toBe(first);
    idp = await startTestIssuer();
  });
});

describe("createOAuthVerifier: configuration", () => {
  it.each([
    [{ issuers: [] }, /at least one issuer/],
    [{ issuers: [{ issuer: "https://a.example" }, { issuer: "https://a.example" }] }, /twice/],
    [{ issuers: [{ issuer: "https://a.example", algorithms: ["HS256"] }] }, /"HS256" is not accepted/],
    [{ issuers: [{ issuer: "https://a.example", algorithms: ["none"] }] }, /"none" is not accepted/],
    [{ issuers: [{ issuer: "http://idp.example.com" }] }, /must use https/],
    [{ issuers: [{ issuer: "https://a.example", audiences: [] }] }, /no audience/],
    [
      {
        issuers: [
          { issuer: "https://a.example", introspection: { clientId: "c", clientSecret: "s" } },
          { issuer: "https://b.example", introspection: { clientId: "c", clientSecret: "s" } },
        ],
      },
      /Only one issuer may have introspection/,
    ],
    [{ issuers: [{ issuer: "https://a.example" }], scopeMap: { x: ["root"] } }, /not a router scope/],
    [{ issuers: [{ issuer: "https://a.example" }], clockToleranceSeconds: 3600 }, /clockToleranceSeconds/],
  ] as const)("refuses unusable options %#", (options, message) => {
    expect(() => createOAuthVerifier(options as unknown as OAuthVerifierOptions)).toThrow(message);
  });
});
