import { describe, expect, it } from "vitest";
import type { BenchReport } from "../bench-report.js";
import { summarisePathRuns } from "../scenarios/paths/path-rows.js";
import { type PathSection, ratioHeadline } from "../scenarios/paths/path-section.js";
import { computeHeadlines, headlineLines } from "./headlines.js";
import { renderMarkdown } from "./markdown.js";

const rows = summarisePathRuns(
  ["mcp-proxy → stdio server", "trestle serve → sandboxed stdio forward"].map((label, i) => ({
    label,
    rounds: [{ round: 1, callsPerSecond: 1000 * (i + 1), serverCpuUsPerCall: 500, treeCpuUsPerCall: 700 }],
    latenciesMs: [1, 2],
    errors: 0,
    errorSamples: [],
  })),
);

const stdio: PathSection = {
  name: "stdio-forward",
  title: "A stdio MCP server: forwarded by the router vs mcp-proxy",
  method: "The stdio echo server as a forward.",
  rows,
  concurrency: 16,
  rounds: 1,
  latencyRows: [],
  headlines: [
    ratioHeadline("throughput trestle stdio forward / mcp-proxy", rows, rows[1]?.label ?? "", 1.5, 16),
  ],
};

/** A run that measured nothing but the paths. */
function report(paths: BenchReport["paths"]): Omit<BenchReport, "headlines"> {
  const skipped = { skipped: "not in --only" };
  return {
    mode: "full",
    startedAt: "2026-12-07T00:00:00.000Z",
    durationSeconds: 60,
    machine: {
      cpuModel: "cpu",
      cores: 2,
      memoryBytes: 2 ** 30,
      node: "v24",
      kernel: "6",
      loadAverageAtStart: [1, 1, 1],
    },
    git: { commit: "abc", uncommittedFiles: [] },
    settings: { concurrencies: [16], rounds: 1, warmupMs: 1, durationMs: 1 },
    throughput: { cells: [], configurations: [], schedule: [] },
    toolsList: skipped,
    idleSessions: skipped,
    codeExecution: skipped,
    crossReplica: skipped,
    profile: skipped,
    ...(paths ? { paths } : {}),
    notes: [],
  };
}

describe("the path sections in docs/benchmarks.md and the headlines", () => {
  it("puts each measured section under its title and its headline among the figures", () => {
    const partial = report({ "stdio-forward": stdio, a2a: { skipped: "failed: no agent" } });
    const headlines = computeHeadlines(partial);
    expect(headlineLines(headlines)).toContain(
      "throughput trestle stdio forward / mcp-proxy: 2.00 × (target ≥ 1.5)  ✓ target met",
    );
    const markdown = renderMarkdown({ ...partial, headlines }, "chart.svg");
    expect(markdown).toContain(
      "## A stdio MCP server: forwarded by the router vs mcp-proxy\n\nThe stdio echo server as a forward.",
    );
    expect(markdown).toContain("| trestle serve → sandboxed stdio forward | 2,000 (2,000–2,000) |");
    expect(markdown).toContain(
      "## The A2A front calling a gRPC tool vs a bare @a2a-js/sdk agent\n\nSkipped: failed: no agent",
    );
    expect(markdown).not.toContain("## Tracing off and on");
  });

  it("adds nothing for a report without the paths", () => {
    const partial = report(undefined);
    expect(computeHeadlines(partial)).toEqual([]);
    expect(renderMarkdown({ ...partial, headlines: [] }, "chart.svg")).not.toContain(
      "forwarded by the router",
    );
  });
});
