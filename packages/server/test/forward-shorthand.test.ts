import { parseForward, parseWithSchema } from "@trestle/registry";
import { describe, expect, it } from "vitest";
import { forwardRequestSchema } from "../src/management/forward-shorthand.js";

/** A forward as the management API reads its body (the short forms are expanded at this edge only). */
function parseRequest(input: unknown) {
  return parseWithSchema(forwardRequestSchema, input, "forward", 1_000_000);
}

describe("a forward written the short way, in a management API request", () => {
  it("takes a command line, an argv array, or a URL for the upstream", () => {
    expect(
      parseRequest({ name: "a", command: "npx -y @modelcontextprotocol/server-everything" }).upstream,
    ).toEqual({
      kind: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
    });
    expect(
      parseRequest({
        name: "b",
        command: ["node", "server.js"],
        args: ["--port", "1"],
        env: { K: "v" },
        mode: "per-call",
      }).upstream,
    ).toEqual({
      kind: "stdio",
      command: "node",
      args: ["server.js", "--port", "1"],
      env: { K: "v" },
      mode: "per-call",
    });
    expect(parseRequest({ name: "c", command: "/opt/my server/bin", args: [] }).upstream).toEqual({
      kind: "stdio",
      command: "/opt/my server/bin",
      args: [],
    });
    expect(
      parseRequest({ name: "d", address: "http://127.0.0.1:3001/mcp", headers: { a: "b" } }).upstream,
    ).toEqual({
      kind: "http",
      url: "http://127.0.0.1:3001/mcp",
      headers: { a: "b" },
    });
    const full = { name: "e", upstream: { kind: "http" as const, url: "https://x.example/mcp" } };
    expect(parseRequest(full)).toEqual(full);
    expect(
      parseRequest({ name: "f", command: "npx -y server", sandbox: false, writablePaths: ["/srv/docs"] })
        .upstream,
    ).toEqual({
      kind: "stdio",
      command: "npx",
      args: ["-y", "server"],
      sandbox: false,
      writablePaths: ["/srv/docs"],
    });
  });

  it("refuses a writable path that is not absolute", () => {
    expect(() => parseRequest({ name: "g", command: "node", writablePaths: ["docs"] })).toThrow(
      /writablePaths.*must be an absolute path/s,
    );
  });

  it("takes an upstream credential on a URL, and refuses one on a stdio server with the reason", () => {
    const upstreamAuth = {
      tokenExchange: { tokenEndpoint: "https://idp.example/token", clientId: "trestle", clientSecret: "s" },
    };
    expect(parseRequest({ name: "i", url: "https://x.example/mcp", upstreamAuth }).upstream).toEqual({
      kind: "http",
      url: "https://x.example/mcp",
      upstreamAuth,
    });
    expect(() => parseRequest({ name: "j", command: "node s.js", upstreamAuth })).toThrow(
      /upstreamAuth.*a stdio forward cannot take upstreamAuth.*no per-call headers/s,
    );
    expect(() =>
      parseRequest({ name: "k", upstream: { kind: "stdio", command: "node", upstreamAuth } }),
    ).toThrow(/a stdio forward cannot take upstreamAuth/);
    expect(() =>
      parseRequest({
        name: "l",
        url: "https://x.example/mcp",
        upstreamAuth: {
          tokenExchange: { ...upstreamAuth.tokenExchange, tokenEndpoint: "http://idp.example/t" },
        },
      }),
    ).toThrow(/https URL/);
  });

  it("still names what is wrong", () => {
    expect(() => parseRequest({ name: "f", url: "ftp://nope" })).toThrow(/upstream\.url/);
    expect(() => parseRequest({ name: "g" })).toThrow(/upstream/);
  });

  it("reaches the forward service in the canonical shape only", () => {
    const canonical = parseRequest({ name: "h", command: ["node", "s.js"], namespace: null });
    expect(canonical).toEqual({ name: "h", upstream: { kind: "stdio", command: "node", args: ["s.js"] } });
    expect(parseForward(canonical)).toEqual(canonical);
    expect(() => parseForward({ name: "h", command: ["node", "s.js"] })).toThrow(/upstream/);
  });

  it("expands an A2A agent's short form, and refuses a bad one with the schema's message", () => {
    expect(parseRequest({ name: "agent", a2a: { url: "http://127.0.0.1:4000" } }).upstream).toEqual({
      kind: "a2a",
      url: "http://127.0.0.1:4000",
    });
    expect(
      parseRequest({
        name: "agent",
        a2a: { url: "https://a.example", headers: { authorization: "Bearer x" } },
      }).upstream,
    ).toEqual({ kind: "a2a", url: "https://a.example", headers: { authorization: "Bearer x" } });
    expect(() => parseRequest({ name: "agent", a2a: { url: "ftp://nope" } })).toThrow(/upstream\.url/);
    expect(() => parseRequest({ name: "agent", a2a: "http://x" })).toThrow(/upstream/);
  });
});
