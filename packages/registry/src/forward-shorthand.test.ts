import { describe, expect, it } from "vitest";
import { parseForward } from "./catalog-schemas.js";

describe("a forward written the short way", () => {
  it("takes a command line, an argv array, or a URL for the upstream", () => {
    expect(
      parseForward({ name: "a", command: "npx -y @modelcontextprotocol/server-everything" }).upstream,
    ).toEqual({
      kind: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
    });
    expect(
      parseForward({
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
    expect(parseForward({ name: "c", command: "/opt/my server/bin", args: [] }).upstream).toEqual({
      kind: "stdio",
      command: "/opt/my server/bin",
      args: [],
    });
    expect(
      parseForward({ name: "d", address: "http://127.0.0.1:3001/mcp", headers: { a: "b" } }).upstream,
    ).toEqual({
      kind: "http",
      url: "http://127.0.0.1:3001/mcp",
      headers: { a: "b" },
    });
    const full = { name: "e", upstream: { kind: "http" as const, url: "https://x.example/mcp" } };
    expect(parseForward(full)).toEqual(full);
  });

  it("still names what is wrong", () => {
    expect(() => parseForward({ name: "f", url: "ftp://nope" })).toThrow(/upstream\.url/);
    expect(() => parseForward({ name: "g" })).toThrow(/upstream/);
  });
});
