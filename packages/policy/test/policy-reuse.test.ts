import { describe, expect, it } from "vitest";
import { compilePolicies, type PolicyPrincipal, type PolicyRule, type PolicyTool } from "../src/index.js";

// A compiled policy keeps what does not depend on a call's arguments per principal and tool object: these
// decisions reuse the same objects, as the router does, and must come out as if each were decided afresh.
const RULES: PolicyRule[] = [
  { name: "no-admin-tools", effect: "deny", when: 'tool.name.startsWith("admin_")' },
  { name: "blocked-group", effect: "deny", when: '"blocked" in principal.groups' },
  { name: "secret-namespace", effect: "deny", when: 'ns == "secret" && method == "tools/call"' },
  { name: "no-atlantis", effect: "deny", when: '"city" in arguments && arguments.city == "Atlantis"' },
  { name: "mcp-scope", effect: "allow", when: 'principal.scopes.exists(s, s == "mcp")' },
];

const person = (name: string, groups: string[], scopes = ["mcp"]): PolicyPrincipal =>
  Object.freeze({ name, groups, scopes, claims: { sub: name } });
const alice = person("alice", []);
const mallory = person("mallory", ["blocked"]);
const carol = person("carol", [], []);
const weather: PolicyTool = Object.freeze({ name: "weather" });
const adminTool: PolicyTool = Object.freeze({ name: "admin_reset" });

const callOf = (
  principal: PolicyPrincipal,
  tool: PolicyTool,
  args: Record<string, unknown>,
  namespace = "",
) => ({
  principal,
  namespace,
  method: "tools/call",
  tool,
  arguments: args,
});

describe("decisions that reuse principal and tool objects", () => {
  it("decides each call's arguments afresh", () => {
    const policy = compilePolicies(RULES, { default: "deny" });
    const decide = (city: string) => policy.decideCall(callOf(alice, weather, { city })).effect;
    expect([decide("Atlantis"), decide("Paris"), decide("Atlantis"), decide("Oslo")]).toEqual([
      "deny",
      "allow",
      "deny",
      "allow",
    ]);
  });

  it("keeps one principal's outcome from another's, whoever is decided first", () => {
    const policy = compilePolicies(RULES, { default: "deny" });
    const decided = [alice, mallory, carol, alice, mallory].map((p) =>
      policy.decideCall(callOf(p, weather, {})),
    );
    expect(decided.map((d) => `${d.effect}:${d.rule ?? "(default)"}`)).toEqual([
      "allow:mcp-scope",
      "deny:blocked-group",
      "deny:(default)",
      "allow:mcp-scope",
      "deny:blocked-group",
    ]);
  });

  it("keeps one tool's outcome from another's for the same principal", () => {
    const policy = compilePolicies(RULES, { default: "deny" });
    const decided = [weather, adminTool, weather].map(
      (tool) => policy.decideCall(callOf(alice, tool, {})).rule,
    );
    expect(decided).toEqual(["mcp-scope", "no-admin-tools", "mcp-scope"]);
  });

  it("keeps namespaces and methods apart, at call and at list time", () => {
    const policy = compilePolicies(RULES, { default: "deny" });
    expect(policy.decideCall(callOf(alice, weather, {}, "secret")).rule).toBe("secret-namespace");
    expect(policy.decideCall(callOf(alice, weather, {}, "public")).rule).toBe("mcp-scope");
    const list = (namespace: string) =>
      policy.decideList({ principal: alice, namespace, method: "tools/list", tool: weather });
    // The namespace rule reads the method: listing is not calling.
    expect([list("secret").effect, list("public").effect, list("secret").effect]).toEqual([
      "allow",
      "allow",
      "allow",
    ]);
    expect(policy.decideCall(callOf(alice, weather, {}, "secret")).effect).toBe("deny");
  });

  it("lists for each principal as its own rules say, and the same again when asked again", () => {
    const policy = compilePolicies(RULES, { default: "deny" });
    const list = (principal: PolicyPrincipal) =>
      policy.decideList({ principal, namespace: "", method: "tools/list", tool: weather }).effect;
    expect([list(mallory), list(alice), list(mallory), list(carol), list(alice)]).toEqual([
      "deny",
      "allow",
      "deny",
      "deny",
      "allow",
    ]);
  });

  it("does not carry outcomes from one compiled policy to the next", () => {
    const open = compilePolicies(RULES, { default: "deny" });
    expect(open.decideCall(callOf(alice, weather, {})).effect).toBe("allow");
    const closed = compilePolicies([{ name: "weather-off", effect: "deny", when: 'tool.name == "weather"' }]);
    expect(closed.decideCall(callOf(alice, weather, {})).rule).toBe("weather-off");
  });
});
