import { describe, expect, it } from "vitest";
import { identityCostMarkdown } from "./markdown.js";

describe("the cost of identity in the report", () => {
  it("shows each credential's calls/s with its spread, CPU per call and the ratio to the static token's", () => {
    const lines = identityCostMarkdown({
      concurrency: 16,
      rounds: 2,
      rows: [
        {
          variant: "static token",
          callsPerSecond: 2000,
          serverCpuUsPerCall: 400,
          errors: 0,
          rounds: [
            { callsPerSecond: 1900, serverCpuUsPerCall: 410 },
            { callsPerSecond: 2100, serverCpuUsPerCall: 390 },
          ],
        },
        {
          variant: "JWT + 5 CEL rules",
          callsPerSecond: 1500,
          serverCpuUsPerCall: 520,
          errors: 1,
          rounds: [
            { callsPerSecond: 1400, serverCpuUsPerCall: 530 },
            { callsPerSecond: 1600, serverCpuUsPerCall: 510 },
          ],
        },
      ],
    });
    expect(lines[0]).toMatch(/^Concurrency 16, 2 interleaved round\(s\)/);
    expect(lines).toContain("| static token | 2,000 (1,900–2,100) | 400 | 0 | 1.00 × |");
    expect(lines).toContain("| JWT + 5 CEL rules | 1,500 (1,400–1,600) | 520 | 1 | 0.75 × |");
  });
});
