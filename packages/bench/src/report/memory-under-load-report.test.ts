import { describe, expect, it } from "vitest";
import type { MemoryUnderLoadMeasurement } from "../scenarios/memory-under-load.js";
import { headlineLines, memoryUnderLoadHeadlines } from "./headlines.js";
import { memoryUnderLoadMarkdown } from "./markdown.js";

const MiB = 2 ** 20;

function soak(overrides: Partial<MemoryUnderLoadMeasurement> = {}): MemoryUnderLoadMeasurement {
  return {
    configuration: "trestle-grpc",
    concurrency: 16,
    warmupMs: 30_000,
    windowMs: 600_000,
    callsPerSecond: 1_000,
    errors: 0,
    errorSamples: [],
    latency: { count: 600_000, p50: 9.5, p90: 20, p99: 41.25, max: 90, mean: 11 },
    rssBeforeWarmupBytes: 150 * MiB,
    sampleIntervalMs: 5_000,
    samples: 121,
    calls: 600_000,
    rssStartBytes: 200 * MiB,
    rssEndBytes: 230 * MiB,
    rssMinBytes: 190 * MiB,
    rssMaxBytes: 240 * MiB,
    slopeBytesPerCall: 48.6,
    growthBytesPerCall: (30 * MiB) / 600_000,
    series: [],
    ...overrides,
  };
}

describe("the soak in the report", () => {
  it("prints the headline line with the slope in bytes and a ✓ when within 512 bytes per call", () => {
    const [growth, errors] = headlineLines(memoryUnderLoadHeadlines(soak()));
    expect(growth).toBe("memory growth per call under load: 49 bytes (target ≤ 512)  ✓ target met");
    expect(errors).toBe("errors of trestle-grpc under load for memory: 0 calls (target 0)  ✓ target met");
  });

  it("marks a slope over 512 bytes per call, and errors, as missed", () => {
    const headlines = memoryUnderLoadHeadlines(soak({ slopeBytesPerCall: 512.4, errors: 3 }));
    expect(headlines.map((h) => h.met)).toEqual([false, false]);
    expect(headlineLines(headlines)[0]).toBe(
      "memory growth per call under load: 512 bytes (target ≤ 512)  ✗ target missed",
    );
  });

  it("says how the slope was found and what RSS did", () => {
    const [growth] = memoryUnderLoadHeadlines(soak());
    expect(growth?.detail).toContain("over 600000 calls in 10.0 min at c16");
    expect(growth?.detail).toContain("RSS 200 → 230 MiB (min 190, max 240)");
    expect(growth?.detail).toContain("end − start ÷ calls 52 bytes");
  });

  it("renders one table row with the measured figures and the errors seen", () => {
    const lines = memoryUnderLoadMarkdown(
      soak({ errors: 1, errorSamples: ["JSON-RPC error -32603: `boom`"] }),
    );
    const row = lines.find((l) => l.startsWith("| 600,000 |"));
    expect(row).toBe(
      "| 600,000 | 10.0 | 1,000 | 1 | 9.50 | 41.25 | 150 | 200 | 230 | 190 | 240 | 49 | 52 | 121 |",
    );
    expect(lines.at(-1)).toBe("Errors seen (first samples): `JSON-RPC error -32603: 'boom'`");
  });

  it("shows n/a rather than NaN when no call was answered", () => {
    const lines = memoryUnderLoadMarkdown(
      soak({ calls: 0, slopeBytesPerCall: Number.NaN, growthBytesPerCall: Number.NaN }),
    );
    expect(lines.find((l) => l.startsWith("| 0 |"))).toMatch(/\| n\/a \| n\/a \| 121 \|$/);
  });
});
