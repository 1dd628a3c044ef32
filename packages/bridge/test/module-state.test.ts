import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findModuleState, scanSources } from "./support/module-state.js";

const packages = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const describeFinding = (f: { file: string; line: number; name: string; rule: string }) =>
  `${f.file}:${f.line} ${f.name}: ${f.rule}`;

describe("no module-level mutable state (the rule is documented in test/support/module-state.ts)", () => {
  it.each(["core", "bridge"])("holds for @trestle/%s", (name) => {
    const findings = scanSources(join(packages, name, "src"), packages);
    expect(findings.map(describeFinding)).toEqual([]);
  });

  it("finds each kind of module-level state planted in a source", () => {
    const planted = [
      "let calls = 0;",
      "export var last;",
      "const byId = new Map<string, number>();",
      "const seen = new Set(['a']);",
      "const storage = new AsyncLocalStorage<number>();",
      "const listeners = [];",
      "export const defaults = { timeoutMs: 1000 };",
      "const weak: WeakMap<object, string> = new WeakMap();",
      "class Pool { static instances = 0; static readonly byName = new Map(); }",
    ].join("\n");
    expect(findModuleState("planted.ts", planted).map((f) => `${f.line} ${f.name}`)).toEqual([
      "1 calls",
      "2 last",
      "3 byId",
      "4 seen",
      "5 storage",
      "6 listeners",
      "7 defaults",
      "8 weak",
      "9 Pool.instances",
      "9 Pool.byName",
    ]);
  });

  it("accepts constants the compiler keeps from changing, and state inside functions", () => {
    const allowed = [
      'const NAMES = ["a", "b"] as const;',
      "const LIMITS: Readonly<Record<string, number>> = { a: 1 };",
      "const CODES: ReadonlySet<number> = new Set([1, 2]);",
      "const TABLE: ReadonlyMap<string, number> = new Map([['a', 1]]);",
      "const LIST: readonly string[] = ['x'];",
      "const FROZEN = Object.freeze({ a: 1 });",
      "const encoder = new TextEncoder();",
      "const PATTERN = /x/;",
      "const MAX = 10;",
      "export function counter() { let n = 0; const seen = new Set(); return () => { seen.add(n); return ++n; }; }",
      "class Pool { static readonly NAME = 'pool'; private readonly byName = new Map(); }",
    ].join("\n");
    expect(findModuleState("allowed.ts", allowed)).toEqual([]);
  });
});
