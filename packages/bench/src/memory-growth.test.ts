import { describe, expect, it } from "vitest";
import { leastSquaresSlope, type MemorySample, summariseMemoryGrowth } from "./memory-growth.js";

const MiB = 2 ** 20;

describe("leastSquaresSlope", () => {
  it("recovers the slope of points on a line", () => {
    const points = [0, 1, 2, 3, 4].map((x) => ({ x, y: 7 + 3 * x }));
    expect(leastSquaresSlope(points)).toBeCloseTo(3, 12);
  });

  it("fits through noise: jitter that is symmetric about the middle leaves the line's slope", () => {
    const jitter = [5, -5, -5, 5];
    const points = jitter.map((d, x) => ({ x, y: 100 + 2 * x + d }));
    expect(leastSquaresSlope(points)).toBeCloseTo(2, 12);
  });

  it("weighs every point, not just the ends", () => {
    // Ends equal (end − start is 0), the middle high: the fit still sees the shape.
    const points = [
      { x: 0, y: 0 },
      { x: 1, y: 10 },
      { x: 2, y: 10 },
      { x: 3, y: 0 },
    ];
    expect(leastSquaresSlope(points)).toBeCloseTo(0, 12);
    const rising = [...points, { x: 4, y: 20 }];
    // mean x 2, mean y 8; Σ(dx·dy) = 16 − 2 + 0 − 8 + 24 = 30; Σdx² = 10.
    expect(leastSquaresSlope(rising)).toBeCloseTo(3, 12);
  });

  it("keeps its precision at RSS and call-count magnitudes", () => {
    // 300 MiB and 1e6 calls: raw sums of x·y would be around 1e20 and lose the 0.25 bytes per call.
    const points = Array.from({ length: 121 }, (_, i) => ({ x: i * 10_000, y: 300 * MiB + i * 2_500 }));
    expect(leastSquaresSlope(points)).toBeCloseTo(0.25, 9);
  });

  it("is NaN when no line is defined", () => {
    expect(leastSquaresSlope([])).toBeNaN();
    expect(leastSquaresSlope([{ x: 1, y: 2 }])).toBeNaN();
    expect(
      leastSquaresSlope([
        { x: 5, y: 1 },
        { x: 5, y: 9 },
      ]),
    ).toBeNaN();
  });
});

describe("summariseMemoryGrowth", () => {
  const sample = (calls: number, rssMiB: number): MemorySample => ({
    elapsedMs: calls,
    calls,
    rssBytes: rssMiB * MiB,
  });

  it("reports start, end, extremes, the fitted slope and the end-to-end growth per call", () => {
    // A GC dip in the middle: the extremes see it, the slope barely does.
    const samples = [sample(0, 200), sample(1_000, 260), sample(2_000, 190), sample(3_000, 210)];
    const growth = summariseMemoryGrowth(samples);
    expect(growth).toMatchObject({
      samples: 4,
      calls: 3_000,
      rssStartBytes: 200 * MiB,
      rssEndBytes: 210 * MiB,
      rssMinBytes: 190 * MiB,
      rssMaxBytes: 260 * MiB,
    });
    expect(growth.growthBytesPerCall).toBeCloseTo((10 * MiB) / 3_000, 6);
    // dx −1500, −500, 500, 1500; dy −15, 45, −25, −5 MiB: Σ(dx·dy) = −20,000 MiB·calls over Σdx² = 5e6.
    expect(growth.slopeBytesPerCall).toBeCloseTo(-0.004 * MiB, 6);
  });

  it("counts calls from the first sample, which need not be at zero", () => {
    const growth = summariseMemoryGrowth([sample(500, 100), sample(1_500, 100)]);
    expect(growth.calls).toBe(1_000);
    expect(growth.growthBytesPerCall).toBe(0);
    expect(growth.slopeBytesPerCall).toBe(0);
  });

  it("gives NaN per-call figures when no call was answered, and refuses an empty series", () => {
    const growth = summariseMemoryGrowth([sample(0, 100), sample(0, 120)]);
    expect(growth.growthBytesPerCall).toBeNaN();
    expect(growth.slopeBytesPerCall).toBeNaN();
    expect(() => summariseMemoryGrowth([])).toThrow(/no memory sample/);
  });
});
