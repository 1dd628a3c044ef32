import { describe, expect, it } from "vitest";
import { createToolIndex, type ToolIndex } from "../src/index.js";
import { type GeneratedTool, generateToolCatalog } from "../src/testing/index.js";
import { HOLDOUT_QUERIES } from "./search-holdout-queries.js";
import { QUALITY_QUERIES, type QualityQuery } from "./search-quality-queries.js";

/** Top-1 and top-5 hit rates of a query set, printed with the misses. */
function rates(index: ToolIndex<GeneratedTool>, label: string, queries: readonly QualityQuery[]) {
  const misses: string[] = [];
  let top1 = 0;
  let top5 = 0;
  for (const { query, tool } of queries) {
    const rank = index.search(query, { limit: 5 }).findIndex((r) => r.tool.name === tool);
    if (rank === 0) top1++;
    if (rank >= 0) top5++;
    else misses.push(`${tool} <- "${query}"`);
  }
  const total = queries.length;
  const percent = (n: number): string => `${((100 * n) / total).toFixed(1)}%`;
  console.log(
    `${label}: top-1 ${top1}/${total} (${percent(top1)}), top-5 ${top5}/${total} (${percent(top5)})`,
  );
  console.log(`${label}, not in the top 5:\n  ${misses.join("\n  ")}`);
  return { top1: top1 / total, top5: top5 / total };
}

describe("search quality over the generated 10,000-tool catalog", () => {
  const index = createToolIndex({ tools: generateToolCatalog({ count: 10_000 }) });

  it("puts the intended tool in the top 5 for at least 90% of the fixed queries", () => {
    expect(rates(index, "quality queries", QUALITY_QUERIES).top5).toBeGreaterThanOrEqual(0.9);
  });

  it("carries over to the held-out queries the ranking was not tuned on (at least 80% in the top 5)", () => {
    expect(rates(index, "held-out queries", HOLDOUT_QUERIES).top5).toBeGreaterThanOrEqual(0.8);
  });
});
