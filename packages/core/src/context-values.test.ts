import { describe, expect, it } from "vitest";
import { createContextKey, createContextValues } from "./context-values.js";

describe("context values", () => {
  it("reads a key's default until it is set, and again after it is deleted", () => {
    const kTenant = createContextKey("none", { description: "tenant" });
    const values = createContextValues();
    expect(values.get(kTenant)).toBe("none");
    values.set(kTenant, "acme");
    expect(values.get(kTenant)).toBe("acme");
    values.delete(kTenant);
    expect(values.get(kTenant)).toBe("none");
  });

  it("keeps keys apart by identity, even with the same default and description", () => {
    const a = createContextKey(0, { description: "n" });
    const b = createContextKey(0, { description: "n" });
    const values = createContextValues().set(a, 1);
    expect(values.get(a)).toBe(1);
    expect(values.get(b)).toBe(0);
  });

  it("gives each bag its own values", () => {
    const key = createContextKey<string[]>([]);
    const first = createContextValues().set(key, ["x"]);
    const second = createContextValues();
    expect(first.get(key)).toEqual(["x"]);
    expect(second.get(key)).toEqual([]);
  });

  it("keeps a value set to undefined apart from an unset key", () => {
    const key = createContextKey<string | undefined>("default");
    const values = createContextValues().set(key, undefined);
    expect(values.get(key)).toBeUndefined();
  });

  it("replaces a key's value when set again, and deletes one key of several leaving the others", () => {
    const keys = Array.from({ length: 5 }, (_, i) => createContextKey(-1, { description: `k${i}` }));
    const values = createContextValues();
    for (const [i, key] of keys.entries()) values.set(key, i);
    values.set(keys[2] as (typeof keys)[number], 20).delete(keys[1] as (typeof keys)[number]);
    expect(keys.map((key) => values.get(key))).toEqual([0, -1, 20, 3, 4]);
    values.set(keys[1] as (typeof keys)[number], 10);
    expect(keys.map((key) => values.get(key))).toEqual([0, 10, 20, 3, 4]);
  });
});
