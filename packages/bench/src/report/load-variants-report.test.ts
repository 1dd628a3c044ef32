import { describe, expect, it } from "vitest";
import type { LoadVariantMeasurement } from "../scenarios/load-variants.js";
import { loadVariantsMarkdown } from "./markdown.js";

function variant(
  configuration: LoadVariantMeasurement["configuration"],
  payloadBytes: number,
  watched: boolean,
  callsPerSecond: number,
): LoadVariantMeasurement {
  return {
    configuration,
    payloadBytes,
    watched,
    callsPerSecond,
    serverCpuUsPerCall: 1e6 / callsPerSecond,
    errors: 0,
    ...(watched ? { eventsWatchedPerCall: 2 } : {}),
    rounds: [
      { callsPerSecond: callsPerSecond - 100, serverCpuUsPerCall: 1 },
      { callsPerSecond, serverCpuUsPerCall: 1 },
    ],
  };
}

describe("load variants in the report", () => {
  it("puts each variant beside its configuration's short-word run and bound-mcp's run of the same payload", () => {
    const lines = loadVariantsMarkdown({
      concurrency: 16,
      rounds: 2,
      variants: [
        variant("trestle-grpc", 0, false, 4000),
        variant("trestle-grpc", 0, true, 3000),
        variant("bound-mcp", 16384, false, 2000),
        variant("trestle-grpc", 16384, false, 1000),
      ],
    });
    const row = (label: string) => lines.find((line) => line.startsWith(`| ${label} |`));
    expect(row("trestle-grpc, short word")).toBe(
      "| trestle-grpc, short word | 4,000 (3,900–4,000) | 250 | 0 | – | – | – |",
    );
    expect(row("trestle-grpc, short word, watched")).toBe(
      "| trestle-grpc, short word, watched | 3,000 (2,900–3,000) | 333 | 0 | 2.00 | 0.75 × | – |",
    );
    expect(row("trestle-grpc, 16 KiB each way")).toBe(
      "| trestle-grpc, 16 KiB each way | 1,000 (900–1,000) | 1,000 | 0 | – | 0.25 × | 0.50 × |",
    );
    expect(row("bound-mcp, 16 KiB each way")).toContain("| – | – |");
  });
});
