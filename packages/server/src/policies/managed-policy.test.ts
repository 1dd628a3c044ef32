import type { CodeExecutionBridge, InvokerBridge, ResourceBridge } from "@trestle/bridge";
import type { ToolReference } from "@trestle/core";
import { openStore, type Store } from "@trestle/registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallService } from "../calls/call-service.js";
import { type Caller, callerPrincipal } from "../calls/caller.js";
import type { CatalogView } from "../calls/catalog-view.js";
import { openServerState } from "../state/server-state.js";
import { createManagedPolicy, managedRuleProblems } from "./managed-policy.js";
import { createPolicyTable, EMPTY_STORED_POLICY, type StoredPolicy } from "./policy-table.js";

const bob: Caller = { principal: callerPrincipal({ id: "bob" }), namespace: "" };
const tool = (name: string): ToolReference => ({ name, uri: `svc://${name}`, type: "svc" });
const stored = (
  rules: StoredPolicy["rules"],
  revision: number,
  extra: Partial<StoredPolicy> = {},
): StoredPolicy => ({
  ...EMPTY_STORED_POLICY,
  rules,
  revision,
  updatedAt: revision,
  ...extra,
});

describe("the managed policy", () => {
  it("tries the configured rules first: an API rule cannot override a configured deny", async () => {
    const managed = await createManagedPolicy({
      configured: [{ name: "no-pay", effect: "deny", when: 'tool.name == "pay"' }],
      configuredDefault: "allow",
    });
    await managed.apply(stored([{ name: "allow-all", effect: "allow", when: "true" }], 1));
    expect(
      managed.policy.decide(bob, { method: "tools/call", tool: tool("pay"), arguments: {} }),
    ).toMatchObject({
      allowed: false,
      rule: "no-pay",
    });
  });

  it("decides with the rules applied last, and the API's default replaces the configured one", async () => {
    const managed = await createManagedPolicy({ configured: [], configuredDefault: "allow" });
    expect(managed.policy.open).toBe(true);
    expect(managed.current()).toMatchObject({ default: "allow", defaultSource: "configuration" });
    await managed.apply(
      stored([{ name: "echo-ok", effect: "allow", when: 'tool.name == "echo"' }], 1, { default: "deny" }),
    );
    expect(managed.policy.open).toBe(false);
    expect(managed.current()).toMatchObject({ default: "deny", defaultSource: "api" });
    expect(
      managed.policy.decide(bob, { method: "tools/call", tool: tool("echo"), arguments: {} }).allowed,
    ).toBe(true);
    expect(
      managed.policy.decide(bob, { method: "tools/call", tool: tool("pay"), arguments: {} }),
    ).toMatchObject({
      allowed: false,
      rule: "(default)",
    });
  });

  it("ignores a revision older than the one in force, and tells its listeners of each change", async () => {
    const managed = await createManagedPolicy({ configured: [], configuredDefault: "allow" });
    let changes = 0;
    managed.onChange(() => changes++);
    await managed.apply(stored([{ name: "b", effect: "deny", when: "true" }], 2));
    await managed.apply(stored([], 1));
    expect(managed.current().managed.revision).toBe(2);
    expect(changes).toBe(1);
  });

  it("names the rule and CEL's error of a rule that does not compile, and a configured rule's name", async () => {
    const configured = [{ name: "base", effect: "deny" as const, when: "false" }];
    const problems = await managedRuleProblems(configured, [
      { name: "typo", effect: "deny", when: 'principle.name == "x"' },
      { name: "base", effect: "allow", when: "true" },
    ]);
    expect(problems.join(" ")).toMatch(/"typo".*principle/);
    expect(problems.join(" ")).toMatch(/"base" is a configured rule's name/);
  });

  it("makes the call service filter its lists again when the rules change", async () => {
    const tools = [tool("echo"), tool("pay")];
    const catalog = {
      listTools: () => tools,
      getTool: (_ns: string, name: string) => tools.find((t) => t.name === name),
      listResources: () => [],
      getResource: () => undefined,
      listPrompts: () => [],
      getPrompt: () => undefined,
      getNamespace: () => undefined,
    } as CatalogView;
    const managed = await createManagedPolicy({
      configured: [{ name: "nothing", effect: "deny", when: "false" }],
      configuredDefault: "allow",
    });
    const calls = createCallService({
      catalog,
      invoker: {} as InvokerBridge,
      resources: {} as ResourceBridge,
      codeExecution: {} as CodeExecutionBridge,
      engines: () => [],
      codeExecutionToolName: "execute_code",
      maxConcurrentRunsPerPrincipal: 1,
      policy: managed.policy,
    });
    expect(calls.listTools(bob).map((t) => t.name)).toEqual(["echo", "pay"]);
    await managed.apply(
      stored(
        [{ name: "no-pay-bob", effect: "deny", when: 'principal.name == "bob" && tool.name == "pay"' }],
        1,
      ),
    );
    expect(calls.listTools(bob).map((t) => t.name)).toEqual(["echo"]);
    expect(managed.hidingRule(bob, tool("pay"))).toBe("no-pay-bob");
    expect(managed.hidingRule(bob, tool("echo"))).toBeUndefined();
  });
});

describe("the stored policy", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
    await openServerState(store.sql);
  });
  afterAll(async () => {
    await store.close();
  });

  it("is empty until saved, then increases its revision with each save and announces it", async () => {
    const table = createPolicyTable(store.sql);
    expect(await table.load()).toEqual(EMPTY_STORED_POLICY);
    let notified = 0;
    const unsubscribe = await table.subscribe(
      () => notified++,
      () => undefined,
    );
    const first = await table.save([{ name: "a", effect: "deny", when: "true" }], "deny", "admin", 10);
    const second = await table.save([], null, "ops", 20);
    expect(first).toMatchObject({ revision: 1, default: "deny", updatedBy: "admin" });
    expect(second).toMatchObject({ revision: 2, default: null, rules: [], updatedAt: 20 });
    expect(await table.load()).toEqual(second);
    await expect.poll(() => notified, { timeout: 3_000 }).toBe(2);
    await unsubscribe();
  });
});
