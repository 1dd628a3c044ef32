import { describe, expect, it } from "vitest";
import { bearerChallenge, insufficientScopeChallenge, unauthorizedChallenge } from "../src/index.js";

const META = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

describe("WWW-Authenticate challenges", () => {
  it("401 without a token: resource_metadata and scope, no error", () => {
    expect(unauthorizedChallenge(META, ["mcp"])).toBe(`Bearer resource_metadata="${META}", scope="mcp"`);
  });

  it("401 with a bad token: error=invalid_token and a description", () => {
    expect(unauthorizedChallenge(META, ["mcp"], "The token has expired")).toBe(
      `Bearer error="invalid_token", scope="mcp", resource_metadata="${META}", error_description="The token has expired"`,
    );
  });

  it("403: every needed scope in one scope parameter, deduplicated", () => {
    expect(insufficientScopeChallenge(META, ["mcp", "admin", "mcp"])).toBe(
      `Bearer error="insufficient_scope", scope="mcp admin", resource_metadata="${META}"`,
    );
  });

  it("cannot be broken out of: quotes, backslashes, CR/LF and non-ASCII are neutralised", () => {
    const header = bearerChallenge({
      resourceMetadata: 'https://x.example/"a\\b',
      error: "invalid_token",
      errorDescription: 'bad "token"\\\r\nSet-Cookie: x=1 é',
    });
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toBe(
      'Bearer error="invalid_token", resource_metadata="https://x.example/\\"a\\\\b", error_description="bad \'token\'/  Set-Cookie: x=1  "',
    );
  });

  it("refuses a scope value that is not a scope token", () => {
    expect(() => bearerChallenge({ scopes: ['a"b'] })).toThrow(/not a valid OAuth scope/);
    expect(() => bearerChallenge({ scopes: ["a b"] })).toThrow(/not a valid OAuth scope/);
  });

  it("is a bare Bearer challenge when there is nothing to say", () => {
    expect(bearerChallenge({})).toBe("Bearer");
  });
});
