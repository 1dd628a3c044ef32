import { openStore, type Store } from "@trestle/registry";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerPrincipal } from "../src/calls/caller.js";
import type { CatalogView } from "../src/calls/catalog-view.js";
import { resolveConfig } from "../src/config.js";
import { openAuditModule } from "../src/root/audit.js";
import { openServerState } from "../src/state/server-state.js";

const catalog = { getTool: () => undefined } as unknown as CatalogView;
const logger = pino({ level: "silent" });
const bob = { principal: callerPrincipal({ id: "bob" }), namespace: "" };
const echo = { name: "echo", uri: "svc://echo", type: "svc" };

describe("the audit module's configuration", () => {
  it("keeps no arguments and 30 days by default, and is turned off by audit: false", () => {
    expect(resolveConfig({}).audit).toEqual({ arguments: "none", retentionMs: 30 * 24 * 60 * 60_000 });
    expect(resolveConfig({ env: { TRESTLE_AUDIT: "false" } }).audit).toBe(false);
    expect(resolveConfig({ file: { audit: { arguments: "redacted" } } }).audit).toMatchObject({
      arguments: "redacted",
    });
    expect(() => resolveConfig({ file: { audit: { arguments: "all" } } })).toThrow(
      /audit: must be false, or \{arguments: "none" \| "redacted"/,
    );
  });
});

describe("the audit module on a store two replicas share", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
    await openServerState(store.sql);
  });
  afterAll(async () => {
    await store.close();
  });

  it("puts a policy saved on one replica in force on the other, and tells it its lists changed", async () => {
    const config = resolveConfig({
      file: { policies: [{ name: "configured", effect: "deny", when: 'tool.name == "never"' }] },
    });
    const one = await openAuditModule(config, { sql: store.sql, catalog, logger });
    const two = await openAuditModule(config, { sql: store.sql, catalog, logger });
    let changedOnTwo = 0;
    two.managedPolicy.onChange(() => changedOnTwo++);
    const request = { method: "tools/call" as const, tool: echo, arguments: {} };
    expect(two.policy.decide(bob, request).allowed).toBe(true);

    const saved = await one.policyTable.save(
      [{ name: "no-bob", effect: "deny", when: 'principal.name == "bob"' }],
      null,
      "ops",
      Date.now(),
    );
    await one.managedPolicy.apply(saved);
    expect(one.policy.decide(bob, request)).toMatchObject({ allowed: false, rule: "no-bob" });
    await expect.poll(() => two.policy.decide(bob, request).allowed, { timeout: 5_000 }).toBe(false);
    expect(changedOnTwo).toBe(1);
    expect(two.managedPolicy.current().configured.map((r) => r.name)).toEqual(["configured"]);

    // A replica that starts later reads the stored rules.
    const three = await openAuditModule(config, { sql: store.sql, catalog, logger });
    expect(three.policy.decide(bob, request)).toMatchObject({ allowed: false, rule: "no-bob" });
    await Promise.all([one.close(), two.close(), three.close()]);
  });

  it("has no audit log with audit: false, and its services are the call service as it is", async () => {
    const module = await openAuditModule(resolveConfig({ env: { TRESTLE_AUDIT: "false" } }), {
      sql: store.sql,
      catalog,
      logger,
    });
    expect(module.auditLog).toBeUndefined();
    const calls = {} as Parameters<typeof module.forFront>[0];
    expect(module.forFront(calls, "mcp")).toBe(calls);
    await module.close();
  });
});
