import { describe, expect, it } from "vitest";
import { median, quantile, summariseLatencies } from "../src/latency-summary.js";

describe("latency summaries", () => {
  it("takes nearest-rank percentiles whatever the input order", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    const summary = summariseLatencies(values);
    expect(summary).toMatchObject({ count: 100, p50: 50, p90: 90, p99: 99, max: 100, mean: 50.5 });
    expect(quantile(Float64Array.from([1, 2, 3]), 0.5)).toBe(2);
  });

  it("gives NaN for no values rather than a number that looks measured", () => {
    expect(summariseLatencies([]).p50).toBeNaN();
    expect(median([])).toBeNaN();
  });

  it("takes the median of an even count as the mean of the middle two", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
  });
});
