/**
 * The benchmark harness of issue 8 (`pnpm bench`). Its command line is `dist/main.js`; these exports are the
 * pieces that hold no process: latency summaries, the CPU-profile summary, the memory-growth fit, the chart and the
 * report.
 *
 * @packageDocumentation
 */

export { a2aAnswerText } from "./a2a-answer.js";
export type { BenchReport, Headline, Skipped } from "./bench-report.js";
export {
  areaOf,
  type CostEntry,
  type CpuProfile,
  type CpuProfileSummary,
  cpuProfileMarkdown,
  type SummariseOptions,
  shortUrl,
  summariseCpuProfile,
} from "./cpu-profile-summary.js";
export { type LatencySummary, median, quantile, summariseLatencies } from "./latency-summary.js";
export {
  leastSquaresSlope,
  type MemoryGrowth,
  type MemorySample,
  summariseMemoryGrowth,
} from "./memory-growth.js";
export { computeHeadlines, headlineLines } from "./report/headlines.js";
export { renderMarkdown } from "./report/markdown.js";
export { pathSectionMarkdown } from "./report/paths-report.js";
export { niceCeiling, renderChart } from "./report/svg-chart.js";
export {
  type PathRound,
  type PathRow,
  type PathRuns,
  summarisePathRuns,
} from "./scenarios/paths/path-rows.js";
export { type LatencyRow, type PathSection, ratioHeadline } from "./scenarios/paths/path-section.js";
export { createSseParser, type SseEvent, type SseParser } from "./sse-parser.js";
