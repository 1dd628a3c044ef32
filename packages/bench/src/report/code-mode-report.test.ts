import { describe, expect, it } from "vitest";
import type { CodeModeMeasurement } from "../scenarios/code-mode.js";
import { codeModeMarkdown, perCallBeyondEmpty } from "./code-mode-report.js";

const count = (tokens: number) => ({ tokens, bytes: tokens * 4 });

const measurement: CodeModeMeasurement = {
  tokenizer: "o200k_base (gpt-tokenizer 4.0.0)",
  definitionTools: 500,
  tokens: {
    listedTools: 501,
    plainListing: count(60_000),
    searchListing: count(600),
    searchResult: count(2_000),
    codeMode: count(45_000),
    declarations: count(44_700),
    pythonStub: count(48_000),
  },
  searchResultQuery: "refund a payment",
  searchResultTools: 10,
  sequential: {
    calls: 50,
    repetitions: 2,
    variants: [
      { variant: "client round trips (tools/call × 50)", calls: 50, runsMs: [900, 1_100], medianMs: 1_000 },
      { variant: "one Python program (50 calls)", calls: 50, runsMs: [1_400, 1_600], medianMs: 1_500 },
      { variant: "Python program, no calls", calls: 0, runsMs: [1_000, 1_000], medianMs: 1_000 },
    ],
  },
  search: {
    tools: 10_000,
    searches: 300,
    addMs: 15_000,
    firstSearchMs: 800,
    latency: { count: 300, p50: 4.25, p90: 6, p99: 9.5, max: 12, mean: 4.6 },
  },
  cpu: [
    {
      variant: "one Python program",
      calls: 300,
      wallMs: 900,
      routerCpuUsPerCall: 420,
      engineCpuUsPerCall: 510,
      capabilityCpuUsPerCall: 60,
    },
    {
      variant: "client round trips",
      calls: 300,
      wallMs: 600,
      routerCpuUsPerCall: 380,
      capabilityCpuUsPerCall: 58,
    },
  ],
};

describe("the code-mode section of the report", () => {
  const lines = codeModeMarkdown(measurement);

  it("shows each way's tokens beside the plain listing's", () => {
    expect(lines).toContain(
      "| plain `tools/list` | 60,000 | 100 % | 234 | every definition, once per session |",
    );
    expect(lines).toContain("| tool search: `tools/list` | 600 | 1.0 % | 2 | once per session |");
    expect(lines).toContain("| tool search: one `search_tools` result | 2,000 | 3.3 % | 8 | per search |");
    expect(lines).toContain(
      "| code mode: `execute_code` + `tools.d.ts` | 45,000 | 75 % | 176 | of which the declarations 44,700 |",
    );
  });

  it("times the sequential calls, a program's per call beyond its empty run, and the client's ratio", () => {
    expect(lines).toContain("| client round trips (tools/call × 50) | 1,000 | 900–1,100 | 20.00 | – |");
    expect(lines).toContain("| one Python program (50 calls) | 1,500 | 1,400–1,600 | 10.00 | 0.67 × |");
    expect(lines).toContain("| Python program, no calls | 1,000 | 1,000–1,000 | n/a | – |");
  });

  it("gives the search's percentiles and the CPU per call of each run", () => {
    expect(lines).toContain("| 10,000 | 300 | 4.25 | 6.00 | 9.50 | 12.00 | 800.0 |");
    expect(lines).toContain("| one Python program | 300 | 900 | 420 | 510 | 60 |");
    expect(lines).toContain("| client round trips | 300 | 600 | 380 | – | 58 |");
  });

  it("computes a program's time per call beyond its empty program's", () => {
    expect(perCallBeyondEmpty(150, 100, 50)).toBe(1);
    expect(perCallBeyondEmpty(150, 100, 0)).toBeNaN();
  });
});
