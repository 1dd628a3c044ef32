import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createCallMetrics } from "../src/call-metrics.js";
import { registerRouterGauges } from "../src/router-gauges.js";

const dashboard = readFileSync(
  join(import.meta.dirname, "..", "..", "..", "docs", "grafana", "trestle.json"),
  "utf8",
);
const documentation = readFileSync(
  join(import.meta.dirname, "..", "..", "..", "docs", "observability.md"),
  "utf8",
);

/** The metric families the package defines, by name. */
async function definedMetrics(): Promise<Set<string>> {
  const registry = new Registry();
  createCallMetrics(registry);
  registerRouterGauges(registry, { mcpSessions: () => 0, listenStreams: () => 0, circuits: () => [] });
  return new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
}

describe("docs/grafana/trestle.json and docs/observability.md", () => {
  it("query only metrics the router defines", async () => {
    const defined = await definedMetrics();
    // Label lists (`by (le, service)`) and legends (`{{service}}`) name labels, not metrics.
    const queries = dashboard.replace(/by \([^)]*\)/g, "").replace(/\{\{[^}]*\}\}/g, "");
    const used = new Set(
      [...queries.matchAll(/\b((?:trestle|mcp)_[a-z_]+?)(?:_bucket|_count|_sum)?(?=[{)])/g)].map(
        (m) => m[1] as string,
      ),
    );
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) expect(defined, name).toContain(name);
  });

  it("document every metric the router defines", async () => {
    for (const name of await definedMetrics()) expect(documentation, name).toContain(`\`${name}\``);
  });
});
