import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  createPrincipal,
  createScopeMapping,
  createStaticTokenVerifier,
  hasScope,
  missingScopes,
  principalBearer,
  readClaim,
  tokenScopesOf,
} from "../src/index.js";

describe("Principal", () => {
  const bearer = "eyJhbGciOiJSUzI1NiJ9.payload.signature-of-a-secret-token";
  const principal = createPrincipal(
    {
      kind: "oauth",
      id: "https://idp#alice",
      name: "alice",
      scopes: ["mcp"],
      claims: { sub: "alice", nested: { a: 1 } },
    },
    bearer,
  );

  it("keeps the bearer out of every ordinary way of reading or copying it", () => {
    expect(principalBearer(principal)).toBe(bearer);
    expect(JSON.stringify(principal)).not.toContain("secret-token");
    expect(inspect(principal, { depth: 5 })).not.toContain("secret-token");
    expect(Object.keys(principal)).not.toContain("bearer");
    expect(principalBearer({ ...principal })).toBeUndefined();
    expect(principalBearer(structuredClone(principal))).toBeUndefined();
  });

  it("is frozen, claims included", () => {
    expect(Object.isFrozen(principal)).toBe(true);
    expect(Object.isFrozen(principal.claims.nested)).toBe(true);
    expect(() => (principal.scopes as string[]).push("admin")).toThrow();
  });

  it("treats admin as every scope", () => {
    const admin = createPrincipal({ kind: "token", id: "token:ops", name: "ops", scopes: ["admin"] });
    expect(hasScope(admin, "register")).toBe(true);
    expect(missingScopes(principal, ["mcp", "register", "admin"])).toEqual(["register", "admin"]);
  });
});

describe("claims and scopes", () => {
  it("reads a claim named with dots as it is before reading it as a path", () => {
    const claims = { "https://example.com/groups": ["a"], realm_access: { roles: ["r"] } };
    expect(readClaim(claims, "https://example.com/groups")).toEqual(["a"]);
    expect(readClaim(claims, "realm_access.roles")).toEqual(["r"]);
    expect(readClaim(claims, "realm_access.missing")).toBeUndefined();
  });

  it("reads scope (space-separated) before scp (array)", () => {
    expect(tokenScopesOf({ scope: "a  b", scp: ["c"] })).toEqual(["a", "b"]);
    expect(tokenScopesOf({ scp: ["c", 1, "d"] })).toEqual(["c", "d"]);
    expect(tokenScopesOf({ scp: "e f" })).toEqual(["e", "f"]);
  });

  it("grants router scopes of the same name by default, and only mapped values with a map", () => {
    expect(createScopeMapping().grant(["mcp", "admin", "email"])).toEqual(["mcp", "admin"]);
    const mapped = createScopeMapping({ scopeMap: { "t:use": ["mcp"], "t:ops": ["admin", "register"] } });
    expect(mapped.grant(["admin", "t:use"])).toEqual(["mcp"]);
    expect(mapped.oauthScopesFor(["register", "mcp"])).toEqual(["t:ops", "t:use"]);
    expect(mapped.oauthScopesFor(["unmapped"])).toEqual(["unmapped"]);
  });
});

describe("createStaticTokenVerifier", () => {
  const verifier = createStaticTokenVerifier([
    { name: "ops", token: "ops-token", scopes: ["admin"] },
    { name: "team-a", token: "team-a-token", scopes: ["mcp"], namespaces: ["a"], groups: ["team-a"] },
  ]);

  it("returns the same principal for each request with a token, and nothing for an unknown one", () => {
    const first = verifier.verify("team-a-token");
    expect(first).toMatchObject({ kind: "token", id: "token:team-a", namespaces: ["a"], groups: ["team-a"] });
    expect(verifier.verify("team-a-token")).toBe(first);
    expect(verifier.verify("team-a-token ")).toBeUndefined();
    expect(verifier.verify("")).toBeUndefined();
  });

  it("refuses duplicate names, duplicate values and empty tokens", () => {
    expect(() =>
      createStaticTokenVerifier([
        { name: "a", token: "x", scopes: [] },
        { name: "a", token: "y", scopes: [] },
      ]),
    ).toThrow(/named "a"/);
    expect(() =>
      createStaticTokenVerifier([
        { name: "a", token: "x", scopes: [] },
        { name: "b", token: "x", scopes: [] },
      ]),
    ).toThrow(/same value/);
    expect(() => createStaticTokenVerifier([{ name: "a", token: "", scopes: [] }])).toThrow(/empty/);
  });
});
