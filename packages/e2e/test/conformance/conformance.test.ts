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
    // What the Wanaku contract cannot carry (typed content, logging and progress during a call, requests for
    // input, tasks): a dual-era MCP server behind a forward, which the router speaks 2026-07-28 to. Its tools
    // whose names the catalog already has are skipped by the import: those are served by the capability.
    await api(router.url, "POST", "/api/v1/forwards", {
      name: "dual-era",
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [join(fixtures, "modern-mcp-server.mjs")],
        cwd: repoRoot,
      },
    });
    await serviceHealthy(router.url, "conformance");
  }, 120_000);

  afterAll(stopAll);

  /** Runs one requirement set; the suite's exit code covers the baseline, and `mustPass` must have run and passed. */
  async function meets(
    requirements: "2026-07-28" | "2025-11-25",
    mustPass: readonly string[],
  ): Promise<void> {
    const run = await runConformanceSuite(`${router.url}/mcp`, requirements, baseline(requirements));
    const summary = run.output.slice(run.output.indexOf("=== SUMMARY ==="));
    expect(run.code, `${summary}\n${failedChecks(run).join("\n")}`).toBe(0);
    expect(run.scenarios.length, "scenarios the suite ran").toBeGreaterThan(25);
    for (const scenario of mustPass) {
      const checks = run.scenarios.find((s) => s.scenario === scenario)?.checks;
      expect(checks?.length, `${scenario} ran`).toBeGreaterThan(0);
      expect(
        checks?.every((c) => c.status !== "FAILURE"),
        scenario,
      ).toBe(true);
    }
  }

  it(
    "meets the 2026-07-28 requirements except the baseline (baseline-2026-07-28.yml)",
    () =>
      meets("2026-07-28", [
        "server-stateless",
        "tools-call-simple-text",
        "caching",
        "tools-call-audio",
        "input-required-result-tampered-state",
        "tasks-lifecycle",
        "tasks-mrtr-input",
      ]),
    600_000,
  );

  it(
    "meets the 2025-11-25 requirements except the baseline (baseline-2025-11-25.yml)",
    () =>
      meets("2025-11-25", [
        "server-initialize",
        "tools-call-with-logging",
        "tools-call-with-progress",
        "resources-subscribe",
        "tools-call-sampling",
        "tools-call-elicitation",
        "dns-rebinding-protection",
      ]),
    600_000,
  );
});

/**
 * The same suite against a router started as a user starts it: `trestle serve --builtins`, nothing else in its
 * catalog. The scenarios that need the suite's fixture tools are in baseline-builtins-2026-07-28.yml; every
 * generic check must pass here too (a client's whitespace around a header value, prompts declared in discovery).
 */
describe("the official MCP conformance suite against a router with only its built-in services", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter(["--builtins"]);
    await serviceHealthy(router.url, "trestle");
  }, 120_000);

  afterAll(stopAll);

  it("meets the generic 2026-07-28 requirements (baseline-builtins-2026-07-28.yml: what needs the suite's fixtures)", async () => {
    const run = await runConformanceSuite(`${router.url}/mcp`, "2026-07-28", baseline("builtins-2026-07-28"));
    const summary = run.output.slice(run.output.indexOf("=== SUMMARY ==="));
    expect(run.code, `${summary}\n${failedChecks(run).join("\n")}`).toBe(0);
    const status = (scenario: string, check: string) =>
      run.scenarios.find((s) => s.scenario === scenario)?.checks.find((c) => c.id === check)?.status;
    expect(status("http-header-validation", "sep-2243-server-accepts-whitespace-header-value")).toBe(
      "SUCCESS",
    );
    expect(status("server-stateless", "sep-2575-server-declares-prompts-in-discover")).toBe("SUCCESS");
    for (const scenario of [
      "tools-list",
      "prompts-list",
      "resources-list",
      "caching",
      "dns-rebinding-protection",
    ]) {
      const checks = run.scenarios.find((s) => s.scenario === scenario)?.checks;
      expect(checks?.length, `${scenario} ran`).toBeGreaterThan(0);
      expect(
        checks?.filter((c) => c.status === "FAILURE"),
        scenario,
      ).toEqual([]);
    }
  }, 600_000);
});
