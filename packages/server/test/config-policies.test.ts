import { compilePolicies } from "@trestle/policy";
import { describe, expect, it } from "vitest";
import { resolveConfig, resolveRouterConfig } from "../src/config.js";
import { createManagedPolicy } from "../src/policies/managed-policy.js";
import { defaultOnlyPolicy } from "../src/policies/policy-engine.js";

const typo = [{ name: "typo", effect: "deny", when: 'principle.name == "x"' }];

describe("the configured policy rules", () => {
  it("are compiled when the router's configuration is resolved: a rule that does not compile is refused", async () => {
    await expect(resolveRouterConfig({ file: { policies: typo } })).rejects.toThrow(
      /Invalid configuration: policies: .*"typo".*principle/,
    );
    // A key the schema refuses is reported first, as the synchronous resolution reports it.
    await expect(resolveRouterConfig({ file: { policies: typo, port: -1 } })).rejects.toThrow(/port: /);
    const rules = [{ name: "fine", effect: "deny", when: 'tool.name == "x"' }];
    expect((await resolveRouterConfig({ file: { policies: rules } })).policies).toEqual(rules);
    expect((await resolveRouterConfig({})).policies).toEqual([]);
  });

  it("keep their shape checked without the engine (the synchronous resolution)", () => {
    expect(() =>
      resolveConfig({ file: { policies: [{ name: "x", effect: "maybe", when: "true" }] } }),
    ).toThrow(/policies/);
  });
});

describe("the policy of no rule", () => {
  it("decides as the engine does with no rule, for either default", () => {
    for (const effect of ["allow", "deny"] as const) {
      const engine = compilePolicies([], { default: effect });
      const none = defaultOnlyPolicy(effect);
      const principal = { name: "a", groups: [], scopes: [], claims: {} };
      const call = { principal, namespace: "", method: "tools/call", tool: { name: "t" }, arguments: {} };
      expect(none.decideCall(call)).toEqual(engine.decideCall(call));
      expect(none.decideList(call)).toEqual(engine.decideList(call));
      expect(none.defaultEffect).toBe(engine.defaultEffect);
      expect(none.rules).toEqual(engine.rules);
    }
  });
});

describe("a router made from resolveConfig's result", () => {
  it("refuses a configured rule that does not compile with the configuration's words", async () => {
    await expect(
      createManagedPolicy({
        configured: resolveConfig({ file: { policies: typo } }).policies,
        configuredDefault: "allow",
      }),
    ).rejects.toThrow(/Invalid configuration: policies: .*"typo".*principle/);
  });
});
