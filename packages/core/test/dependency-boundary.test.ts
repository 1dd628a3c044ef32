import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const srcDir = join(import.meta.dirname, "..", "src");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    return statSync(full).isDirectory()
      ? sources(full)
      : full.endsWith(".ts") && !full.endsWith(".test.ts")
        ? [full]
        : [];
  });
}

const importPattern = /(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The architecture's first rule: core knows no transport, no database and no HTTP framework. */
describe("@trestle/core boundaries", () => {
  const allowed = [/^\.{1,2}\//];
  const allowedInTesting = [...allowed, /^vitest$/];
  const forbiddenNode = /^node:(http|http2|https|net|tls|dgram|child_process)$/;
  // The address classifier (its own subpath) parses with node:net's isIP and BlockList; it opens no socket.
  const addressRanges = join(srcDir, "address-ranges.ts");

  it("imports only relative modules (vitest in testing/)", () => {
    const offenders: string[] = [];
    for (const file of sources(srcDir)) {
      const rules = file.includes(`${join("src", "testing")}`) ? allowedInTesting : allowed;
      for (const match of readFileSync(file, "utf8").matchAll(importPattern)) {
        const spec = match[1] ?? match[2] ?? "";
        if (file === addressRanges && spec === "node:net") continue;
        if (forbiddenNode.test(spec) || !rules.some((r) => r.test(spec))) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("declares no transport, database or HTTP dependency", () => {
    const pkg = JSON.parse(readFileSync(join(srcDir, "..", "package.json"), "utf8"));
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual([]);
  });

  it("knows no wire: no @trestle/proto or protobuf import, not even for types (the Wanaku contract is @trestle/wanaku's)", () => {
    const wireImports =
      /(?:import|export)\s+[^;]*?from\s*["'](@trestle\/proto|@bufbuild\/[\w-]+)(\/[^"']*)?["']/g;
    const offenders: string[] = [];
    for (const file of [...sources(srcDir), ...sources(join(srcDir, "..", "test"))]) {
      for (const match of readFileSync(file, "utf8").matchAll(wireImports))
        offenders.push(`${file}: ${match[1]}`);
    }
    expect(offenders).toEqual([]);
    expect([...'import type { X } from "@trestle/proto";'.matchAll(wireImports)]).toHaveLength(1);
  });

  it("keeps vitest out of the main entry point", () => {
    const reachable = new Set<string>();
    const visit = (file: string) => {
      if (reachable.has(file)) return;
      reachable.add(file);
      for (const match of readFileSync(file, "utf8").matchAll(importPattern)) {
        const spec = match[1] ?? match[2] ?? "";
        expect(spec, `${file} reaches vitest from the main entry`).not.toBe("vitest");
        expect(spec, `${file} reaches node:net from the main entry`).not.toBe("node:net");
        if (spec.startsWith(".")) visit(join(file, "..", spec.replace(/\.js$/, ".ts")));
      }
    };
    visit(join(srcDir, "index.ts"));
    expect(reachable.size).toBeGreaterThan(5);
  });
});
