import { describe, expect, it } from "vitest";
import { summarisePathRuns } from "../scenarios/paths/path-rows.js";
import { type PathSection, ratioHeadline } from "../scenarios/paths/path-section.js";
import { headlineLines } from "./headlines.js";
import { pathSectionMarkdown } from "./paths-report.js";

const rows = summarisePathRuns([
  {
    label: "mcp-proxy",
    rounds: [
      { round: 1, callsPerSecond: 1000, serverCpuUsPerCall: 600, treeCpuUsPerCall: 900 },
      { round: 2, callsPerSecond: 1200, serverCpuUsPerCall: 500, treeCpuUsPerCall: 800 },
    ],
    latenciesMs: [2, 4],
    errors: 0,
    errorSamples: [],
  },
  {
    label: "trestle",
    rounds: [
      { round: 1, callsPerSecond: 2000, serverCpuUsPerCall: 300, treeCpuUsPerCall: 500 },
      { round: 2, callsPerSecond: 1200, serverCpuUsPerCall: 400, treeCpuUsPerCall: 600 },
    ],
    latenciesMs: [1, 3],
    errors: 1,
    errorSamples: ["HTTP 503: `busy`"],
  },
]);

describe("a path section in the report", () => {
  it("shows each path's calls/s with its spread, latency, CPU per call and ratio to the first row", () => {
    const section: PathSection = {
      name: "stdio-forward",
      title: "t",
      method: "How it ran.",
      rows,
      concurrency: 16,
      rounds: 2,
      latencyRows: [
        {
          label: "print(1)",
          count: 10,
          p50Ms: 250.04,
          p99Ms: 300,
          maxMs: 310,
          errors: 0,
          serverCpuUsPerCall: 1234.4,
        },
      ],
      headlines: [],
    };
    const lines = pathSectionMarkdown(section);
    expect(lines[0]).toBe("How it ran.");
    expect(lines).toContain("| mcp-proxy | 1,100 (1,000–1,200) | 2.00 | 4.00 | 550 | 850 | 0 | – |");
    expect(lines).toContain("| trestle | 1,600 (1,200–2,000) | 1.00 | 3.00 | 350 | 550 | 1 | 1.50 × |");
    expect(lines.join("\n")).toContain("Errors seen (first samples): `trestle: HTTP 503: 'busy'`");
    expect(lines).toContain("| print(1) | 10 | 250.0 | 300.0 | 310.0 | 0 | 1,234 | – |");
  });

  it("holds the ratio to its target in the headline", () => {
    const met = ratioHeadline("throughput trestle / mcp-proxy", rows, "trestle", 1.5, 16);
    expect(met).toMatchObject({ value: 1.5, target: "≥ 1.5", met: true });
    expect(met.detail).toContain("server CPU per call 350 µs (trestle) vs 550 µs (mcp-proxy)");
    expect(headlineLines([met])).toEqual([
      "throughput trestle / mcp-proxy: 1.50 × (target ≥ 1.5)  ✓ target met",
    ]);
    const missed = ratioHeadline("x", rows, "trestle", 2, 16);
    expect(missed.met).toBe(false);
    const context = ratioHeadline("y", rows, "trestle", undefined, 16);
    expect(context.met).toBeUndefined();
    expect(context.target).toBe("");
  });
});
