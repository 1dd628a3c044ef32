import { describe, expect, it } from "vitest";
import { summarisePathRuns } from "./path-rows.js";
import { tracedCpuRatio, tracedEnvironment } from "./tracing-cost.js";

describe("the cost of tracing", () => {
  it("compares the routers' CPU per call round by round", () => {
    const rows = summarisePathRuns([
      {
        label: "untraced",
        rounds: [
          { round: 1, callsPerSecond: 1, serverCpuUsPerCall: 200, treeCpuUsPerCall: 200 },
          { round: 2, callsPerSecond: 1, serverCpuUsPerCall: 400, treeCpuUsPerCall: 400 },
        ],
        latenciesMs: [],
        errors: 0,
        errorSamples: [],
      },
      {
        label: "traced",
        rounds: [
          { round: 1, callsPerSecond: 1, serverCpuUsPerCall: 300, treeCpuUsPerCall: 300 },
          { round: 2, callsPerSecond: 1, serverCpuUsPerCall: 500, treeCpuUsPerCall: 500 },
        ],
        latenciesMs: [],
        errors: 0,
        errorSamples: [],
      },
    ]);
    // Rounds 1.5 and 1.25: their median (the mean of two) is 1.375.
    expect(tracedCpuRatio(rows)).toBeCloseTo(1.375);
    expect(tracedCpuRatio(rows.slice(0, 1))).toBeNaN();
  });

  it("samples every span and exports it to the sink over OTLP/HTTP, with no metrics or logs exporter", () => {
    expect(tracedEnvironment("http://127.0.0.1:4318")).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      OTEL_TRACES_SAMPLER: "always_on",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none",
    });
  });
});
