import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { InboundContext } from "../src/mcp/mcp-dispatcher.js";

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/**
 * The fronts: each turns its protocol into calls of the one call service and back. None imports another; the
 * call service imports none of them.
 */
const FRONTS = ["mcp", "a2a", "management"] as const;

/** Relative imports of a module, resolved to paths under src (`a2a/task-store.ts`). */
function relativeImports(file: string): string[] {
  const text = readFileSync(join(src, file), "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = join(dirname(file), match[1] as string)
      .replaceAll("\\", "/")
      .replace(/\.js$/, ".ts");
    found.push(target);
  }
  return found;
}

/** `file → imported` pairs where a module of `from` imports a module of a directory in `forbidden`. */
function crossings(from: string, forbidden: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(src, from), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = relative(src, join(entry.parentPath, entry.name)).replaceAll("\\", "/");
    for (const target of relativeImports(file)) {
      if (forbidden.some((dir) => target.startsWith(`${dir}/`))) out.push(`${file} → ${target}`);
    }
  }
  return out;
}

describe("the fronts share the call service, not each other", () => {
  it.each(FRONTS)("no module of the %s front imports another front's", (front) => {
    expect(
      crossings(
        front,
        FRONTS.filter((f) => f !== front),
      ),
    ).toEqual([]);
  });

  it("the call service imports no front", () => {
    expect(crossings("calls", FRONTS)).toEqual([]);
  });

  it("would notice a crossing", () => {
    const planted = 'import { createToolExecutor } from "../a2a/tool-executor.js";';
    const [match] = [...planted.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)];
    expect(join("mcp", match?.[1] ?? "").replace(/\.js$/, ".ts")).toBe("a2a/tool-executor.ts");
  });
});

describe("a front cannot forget the principal", () => {
  it("does not compile a request without one (checked by the type-check of this file)", () => {
    // @ts-expect-error: `principal` is required on every request a front hands to the dispatcher.
    const forgotten: InboundContext = { namespace: "", session: undefined, headers: {} };
    expect(forgotten.namespace).toBe("");
  });
});
