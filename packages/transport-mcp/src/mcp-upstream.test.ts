import { describe, expect, it } from "vitest";
import { describeUpstream, upstreamKey, upstreamKeyCache, upstreamSecretValues } from "./mcp-upstream.js";

describe("upstream descriptions", () => {
  it("names a stdio server by its program only and an HTTP server by its origin only", () => {
    expect(describeUpstream({ kind: "stdio", command: "/opt/bin/server", args: ["--token=abc123"] })).toBe(
      "'server'",
    );
    expect(describeUpstream({ kind: "http", url: "https://u:p@mcp.example:8443/mcp/k?x=1" })).toBe(
      "at https://mcp.example:8443",
    );
  });

  it("lists every argument, option value, environment value, header credential and query value as secret", () => {
    expect(
      upstreamSecretValues({
        kind: "stdio",
        command: "s",
        args: ["--token=abc123", "plain"],
        env: { K: "envval" },
      }),
    ).toEqual(["--token=abc123", "abc123", "plain", "envval"]);
    expect(
      upstreamSecretValues({
        kind: "http",
        url: "http://h/mcp?key=qv1",
        headers: { Authorization: "Bearer hv1" },
      }),
    ).toEqual(expect.arrayContaining(["Bearer hv1", "hv1", "qv1"]));
  });

  it("keys equal descriptions equally whatever the order of their fields", () => {
    expect(upstreamKey({ kind: "stdio", command: "a", env: { X: "1", Y: "2" } })).toBe(
      upstreamKey({ env: { Y: "2", X: "1" }, command: "a", kind: "stdio" }),
    );
    expect(upstreamKey({ kind: "stdio", command: "a" })).not.toBe(
      upstreamKey({ kind: "stdio", command: "b" }),
    );
  });

  it("remembers a description's key per object, and keys a new description of the same upstream the same", () => {
    const keyOf = upstreamKeyCache();
    const first = { kind: "stdio" as const, command: "node", args: ["a.js"] };
    expect(keyOf(first)).toBe(upstreamKey(first));
    expect(keyOf(first)).toBe(keyOf(first));
    const changed = { kind: "stdio" as const, command: "node", args: ["b.js"] };
    expect(keyOf(changed)).not.toBe(keyOf(first));
    expect(keyOf({ args: ["a.js"], command: "node", kind: "stdio" as const })).toBe(keyOf(first));
  });
});
