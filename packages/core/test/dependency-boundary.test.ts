import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
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

  it("exports from its main entry what a transport writer needs, under 80 names; the rest on declared subpaths", () => {
    const names = new Set<string>();
    const block = /export\s+(?:type\s+)?\{([^}]*)\}\s*from/g;
    for (const match of readFileSync(join(srcDir, "index.ts"), "utf8").matchAll(block)) {
      for (const part of (match[1] ?? "").split(",")) {
        const name = part.replace(/^\s*type\s+/, "").trim();
        if (name) names.add(name);
      }
    }
    expect(names.size).toBeGreaterThan(40);
    expect(names.size).toBeLessThan(80);
    for (const needed of ["BridgeTransport", "CallOptions", "TrestleError", "Code", "withInterceptors"])
      expect(names).toContain(needed);

    const pkg = JSON.parse(readFileSync(join(srcDir, "..", "package.json"), "utf8"));
    const published = pkg.publishConfig.exports as Record<string, { types: string; default: string }>;
    expect(Object.keys(published)).toEqual(Object.keys(pkg.exports));
    for (const [subpath, entry] of Object.entries(
      pkg.exports as Record<string, { "@trestle/source": string; types: string; default: string }>,
    )) {
      expect(existsSync(join(srcDir, "..", entry["@trestle/source"])), subpath).toBe(true);
      expect(entry.default).toBe(
        entry["@trestle/source"].replace("./src/", "./dist/").replace(/\.ts$/, ".js"),
      );
      expect(published[subpath]).toEqual({ types: entry.types, default: entry.default });
    }
  });

  it("knows none of the Wanaku contract's request rules: no wanaku_meta_ or wanaku_body outside the tests", () => {
    const offenders = sources(srcDir).filter((file) => /wanaku_(meta|body)/.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });
});
