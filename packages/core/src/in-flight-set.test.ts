import { describe, expect, it } from "vitest";
import { InFlightSet } from "./in-flight-set.js";

describe("InFlightSet", () => {
  it("adds values and removes them through their entries, counting them, newest first", () => {
    const set = new InFlightSet<string>();
    const a = set.add("a");
    const b = set.add("b");
    const c = set.add("c");
    expect(set.size).toBe(3);
    expect(set.values()).toEqual(["c", "b", "a"]);
    expect(set.delete(b)).toBe(true);
    expect(set.delete(b)).toBe(false);
    expect(set.has(b)).toBe(false);
    expect(set.has(a)).toBe(true);
    expect(set.values()).toEqual(["c", "a"]);
    expect(set.delete(c)).toBe(true);
    expect(set.values()).toEqual(["a"]);
    set.add("d");
    expect(set.values()).toEqual(["d", "a"]);
    expect(set.delete(a)).toBe(true);
    expect(set.values()).toEqual(["d"]);
    expect(set.size).toBe(1);
  });

  it("holds the same value twice as two entries", () => {
    const set = new InFlightSet<number>();
    const first = set.add(7);
    set.add(7);
    expect(set.size).toBe(2);
    set.delete(first);
    expect(set.values()).toEqual([7]);
  });

  it("gives a snapshot of its values, which may be removed while they are walked", () => {
    const set = new InFlightSet<number>();
    const entries = [1, 2, 3, 4].map((n) => set.add(n));
    for (const value of set.values()) set.delete(entries[value - 1] as (typeof entries)[number]);
    expect(set.size).toBe(0);
    expect(set.values()).toEqual([]);
  });

  it("keeps a removed entry free of links, so it holds neither the set nor its neighbours", () => {
    const set = new InFlightSet<object>();
    set.add({});
    const middle = set.add({});
    set.add({});
    set.delete(middle);
    expect(middle).toMatchObject({ previous: undefined, next: undefined, held: false });
  });
});
