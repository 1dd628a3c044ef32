import { describe, expect, it } from "vitest";
import { niceCeiling, renderChart } from "../src/report/svg-chart.js";
import type { ThroughputCell } from "../src/scenarios/throughput.js";

const cell = (configuration: ThroughputCell["configuration"], concurrency: number, callsPerSecond: number) =>
  ({
    configuration,
    concurrency,
    callsPerSecond,
    p50Ms: 1,
    p99Ms: concurrency / 2,
    errors: 0,
    errorSamples: [],
    peakRssBytes: 0,
    serverCpuUsPerCall: 0,
    backendCpuUsPerCall: 0,
    clientCpuUsPerCall: 0,
    rounds: [],
  }) satisfies ThroughputCell;

describe("renderChart", () => {
  it("rounds axis maxima up to 1, 2 or 5 times a power of ten", () => {
    expect(niceCeiling(2_345)).toBe(5_000);
    expect(niceCeiling(1_000)).toBe(1_000);
    expect(niceCeiling(0.7)).toBe(1);
  });

  it("draws one bar per configuration and concurrency in each panel, a legend, and escapes text", () => {
    const cells = [cell("bound-mcp", 1, 900), cell("trestle-grpc", 1, 800), cell("bound-mcp", 16, 2_000)];
    const svg = renderChart(cells, "a < b & c");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg.match(/<title>/g)?.length).toBe(7);
    expect(svg).toContain("a &lt; b &amp; c");
    expect(svg).toContain(">trestle-grpc</text>");
    expect(svg).not.toContain("NaN");
  });
});
