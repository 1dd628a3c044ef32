import { describe, expect, it } from "vitest";
import {
  buildProtectedResourceMetadata,
  canonicalResourceUri,
  discoveryUrls,
  endpointResourceUri,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
} from "../src/index.js";

describe("canonicalResourceUri", () => {
  it.each([
    ["https://MCP.Example.com/mcp", "https://mcp.example.com/mcp"],
    ["HTTPS://mcp.example.com:443/", "https://mcp.example.com"],
    ["https://mcp.example.com:8443/server/mcp/", "https://mcp.example.com:8443/server/mcp"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
  ])("%s → %s", (input, expected) => {
    expect(canonicalResourceUri(input)).toBe(expected);
  });

  it.each([
    ["mcp.example.com", /absolute URI/],
    ["https://mcp.example.com#fragment", /fragment/],
    ["https://mcp.example.com/mcp?x=1", /query/],
    ["https://user:pw@mcp.example.com", /user information/],
    ["ftp://mcp.example.com", /http or https/],
  ])("refuses %s", (input, message) => {
    expect(() => canonicalResourceUri(input)).toThrow(message);
  });
});

describe("endpoint URIs and RFC 9728 metadata locations", () => {
  it("joins publicUrl and the endpoint path", () => {
    expect(endpointResourceUri("https://mcp.example.com/", "/mcp")).toBe("https://mcp.example.com/mcp");
    expect(endpointResourceUri("https://h.example.com/trestle", "/team-a/mcp")).toBe(
      "https://h.example.com/trestle/team-a/mcp",
    );
    expect(endpointResourceUri("https://mcp.example.com", "")).toBe("https://mcp.example.com");
    expect(() => endpointResourceUri("https://mcp.example.com", "mcp")).toThrow(/must start with/);
    expect(() => endpointResourceUri("https://mcp.example.com", "/mcp?x")).toThrow(/must not contain/);
  });

  it("inserts the well-known path between the host and the resource's path", () => {
    expect(protectedResourceMetadataUrl("https://example.com/public/mcp")).toBe(
      "https://example.com/.well-known/oauth-protected-resource/public/mcp",
    );
    expect(protectedResourceMetadataUrl("https://example.com")).toBe(
      "https://example.com/.well-known/oauth-protected-resource",
    );
    expect(protectedResourceMetadataPath("https://example.com/mcp")).toBe(
      "/.well-known/oauth-protected-resource/mcp",
    );
  });

  it("builds metadata without offline_access and with header-only bearer methods", () => {
    expect(
      buildProtectedResourceMetadata({
        resource: "https://MCP.example.com/mcp/",
        authorizationServers: ["https://idp.example.com", "https://idp.example.com"],
        scopesSupported: ["mcp", "offline_access"],
      }),
    ).toEqual({
      resource: "https://mcp.example.com/mcp",
      authorization_servers: ["https://idp.example.com"],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
    });
    expect(() =>
      buildProtectedResourceMetadata({ resource: "https://a.example", authorizationServers: [] }),
    ).toThrow(/at least one authorization server/);
  });
});

describe("discoveryUrls", () => {
  it("follows the MCP order for an issuer with a path", () => {
    expect(discoveryUrls("https://auth.example.com/tenant1").map(String)).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]);
  });

  it("follows the MCP order for an issuer without a path", () => {
    expect(discoveryUrls("https://auth.example.com").map(String)).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server",
      "https://auth.example.com/.well-known/openid-configuration",
    ]);
  });
});
