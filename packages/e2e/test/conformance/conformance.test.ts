import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addConformanceCatalog, failedChecks, runConformanceSuite } from "../support/conformance.js";
import {
  api,
  type RouterProcess,
  repoRoot,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  stopAll,
} from "../support/processes.js";

const fixtures = join(repoRoot, "packages", "e2e", "fixtures");
const baseline = (requirements: string) =>
  join(repoRoot, "packages", "e2e", "test", "conformance", `baseline-${requirements}.yml`);

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in this package) against one
 * router, with each revision's requirement set: 2026-07-28 (stateless) and 2025-11-25 (sessions) on the same
 * endpoint. Everything is served through the router, not special-cased: the catalog's fixture capability over
 * the Wanaku contract, and MCP servers behind forwards for what the contract cannot carry. A scenario the
 * router cannot pass is in the revision's baseline file with the reason; the suite fails on an unexpected
 * failure and on a baseline entry that passes.
 */
describe("the official MCP conformance suite against the router", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter();
    await startFixtureCapability(router.url, ["--service-name", "conformance"]);
    await addConformanceCatalog(router.url);
    // Typed content, logging and progress during a call: an MCP server behind a forward, spawned per call so
    // that its logging messages belong to the call.
    await api(router.url, "POST", "/api/v1/forwards", {
      name: "rich-content",
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [join(fixtures, "conformance-mcp-server.mjs")],
        mode: "per-call",
      },
    });
    await serviceHealthy(router.url, "conformance");
  }, 120_000);

  afterAll(stopAll);

  it("meets the 2026-07-28 requirements except the baseline (baseline-2026-07-28.yml)", async () => {
    const run = await runConformanceSuite(`${router.url}/mcp`, "2026-07-28", baseline("2026-07-28"));
    const summary = run.output.slice(run.output.indexOf("=== SUMMARY ==="));
    expect(run.code, `${summary}\n${failedChecks(run).join("\n")}`).toBe(0);
    const passed = (name: string) =>
      run.scenarios.find((s) => s.scenario === name)?.checks.every((c) => c.status !== "FAILURE");
    for (const scenario of ["server-stateless", "tools-call-simple-text", "caching", "tools-call-audio"]) {
      expect(passed(scenario), scenario).toBe(true);
    }
  }, 600_000);

  it("meets the 2025-11-25 requirements except the baseline (baseline-2025-11-25.yml)", async () => {
    const run = await runConformanceSuite(`${router.url}/mcp`, "2025-11-25", baseline("2025-11-25"));
    const summary = run.output.slice(run.output.indexOf("=== SUMMARY ==="));
    expect(run.code, `${summary}\n${failedChecks(run).join("\n")}`).toBe(0);
    const passed = (name: string) =>
      run.scenarios.find((s) => s.scenario === name)?.checks.every((c) => c.status !== "FAILURE");
    for (const scenario of [
      "server-initialize",
      "tools-call-with-logging",
      "tools-call-with-progress",
      "resources-subscribe",
      "dns-rebinding-protection",
    ]) {
      expect(passed(scenario), scenario).toBe(true);
    }
  }, 600_000);
});
