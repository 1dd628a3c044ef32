import { describe, expect, it } from "vitest";
import { summarisePathRuns } from "./path-rows.js";

const round = (r: number, callsPerSecond: number, serverCpuUsPerCall = 100) => ({
  round: r,
  callsPerSecond,
  serverCpuUsPerCall,
  treeCpuUsPerCall: serverCpuUsPerCall + 50,
});

describe("summarising a path comparison", () => {
  it("takes medians over rounds, percentiles over every call, and ratios to the first row round by round", () => {
    const [base, subject] = summarisePathRuns([
      {
        label: "peer",
        rounds: [round(1, 1000, 300), round(2, 500, 500), round(3, 800, 400)],
        latenciesMs: [1, 2, 3, 4],
        errors: 0,
        errorSamples: [],
      },
      {
        label: "trestle",
        rounds: [round(1, 2000), round(2, 1500), round(3, 1200)],
        latenciesMs: [5, 1, 9],
        errors: 2,
        errorSamples: ["a", "b", "c", "d", "e", "f"],
      },
    ]);
    expect(base).toMatchObject({
      label: "peer",
      callsPerSecond: 800,
      serverCpuUsPerCall: 400,
      ratioToFirst: 1,
    });
    expect(base).toMatchObject({ calls: 4, p50Ms: 2, maxMs: 4, treeCpuUsPerCall: 450 });
    // Round ratios 2, 3 and 1.5: the median is 2, not the ratio of the medians (1500 / 800).
    expect(subject?.ratioToFirst).toBe(2);
    expect(subject).toMatchObject({ calls: 3, p50Ms: 5, p99Ms: 9, errors: 2 });
    expect(subject?.errorSamples).toHaveLength(5);
  });

  it("leaves the ratio undefined (NaN) when the first row has no round to compare with", () => {
    const [, subject] = summarisePathRuns([
      { label: "peer", rounds: [round(1, 0)], latenciesMs: [], errors: 3, errorSamples: [] },
      { label: "trestle", rounds: [round(1, 100)], latenciesMs: [1], errors: 0, errorSamples: [] },
    ]);
    expect(subject?.ratioToFirst).toBeNaN();
  });
});
