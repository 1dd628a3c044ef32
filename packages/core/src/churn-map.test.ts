import { describe, expect, it } from "vitest";
import { ChurnMap } from "./churn-map.js";

describe("ChurnMap", () => {
  it("holds, replaces and removes values by key, counting them", () => {
    const map = new ChurnMap<number, string>();
    expect(map.size).toBe(0);
    expect(map.set(1, "a").set(2, "b")).toBe(map);
    expect(map.size).toBe(2);
    expect(map.get(1)).toBe("a");
    expect(map.has(2)).toBe(true);
    map.set(1, "c");
    expect(map.size).toBe(2);
    expect(map.get(1)).toBe("c");
    expect(map.delete(1)).toBe(true);
    expect(map.delete(1)).toBe(false);
    expect(map.has(1)).toBe(false);
    expect(map.get(1)).toBeUndefined();
    expect(map.size).toBe(1);
  });

  it("treats keys that name Object.prototype's members as plain keys", () => {
    const map = new ChurnMap<string, number>();
    expect(map.has("constructor")).toBe(false);
    expect(map.get("__proto__")).toBeUndefined();
    map.set("__proto__", 1).set("toString", 2);
    expect(map.get("__proto__")).toBe(1);
    expect(map.get("toString")).toBe(2);
    expect(map.size).toBe(2);
    expect(map.values().sort()).toEqual([1, 2]);
  });

  it("lists a snapshot of its values, which may be changed while they are walked", () => {
    const map = new ChurnMap<number, number>();
    for (let i = 1; i <= 5; i++) map.set(i * 1_000_003, i);
    for (const value of map.values()) map.delete(value * 1_000_003);
    expect(map.size).toBe(0);
    expect(map.values()).toEqual([]);
  });

  it("keeps working across many entries coming and going (sparse, ever-growing numeric keys)", () => {
    const map = new ChurnMap<number, { id: number }>();
    for (let id = 1; id <= 100_000; id++) {
      map.set(id, { id });
      if (id > 16) map.delete(id - 16);
    }
    expect(map.size).toBe(16);
    expect(
      map
        .values()
        .map((v) => v.id)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 16 }, (_, i) => 100_000 - 15 + i));
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get(100_000)).toBeUndefined();
  });
});
