#!/usr/bin/env node
// Measures the tool index over the generated 10,000-tool catalog: build time and memory, search latency (p50 and
// p99), and the cost of keeping the index current (one tool replaced or removed, a sync of a 1% change) against a
// full rebuild. Runs the built package: `pnpm build` first, then `pnpm measure` (or
// `node --expose-gc scripts/measure.mjs [--count N] [--searches N]`). Prints one line per number and a JSON summary.
import { parseArgs } from "node:util";
import { createToolIndex } from "../dist/index.js";
import { createSeededRandom, generateToolCatalog } from "../dist/testing/index.js";

const { values } = parseArgs({
  options: { count: { type: "string", default: "10000" }, searches: { type: "string", default: "2000" } },
});
const count = Number(values.count);
const searches = Number(values.searches);
const gc = globalThis.gc;
if (!gc) console.warn("run with --expose-gc for the memory figure");

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const median = (list) =>
  percentile(
    [...list].sort((a, b) => a - b),
    0.5,
  );
const time = (run) => {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
};
/** CPU time of the process in ms: steadier than wall time on a machine shared with other work. */
const cpuTime = (run) => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

const tools = generateToolCatalog({ count });

// Build: the median of three, and the heap the index keeps.
const buildTimes = [];
for (let i = 0; i < 3; i++) buildTimes.push(time(() => createToolIndex({ tools })));
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const index = createToolIndex({ tools });
gc?.();
const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 1048576;

// Queries an agent might send: a verb-less handful of words from a tool's description and its product, taken
// from tools chosen by a seeded generator, so every run searches the same things.
const random = createSeededRandom(7);
const queries = [];
for (let i = 0; i < searches; i++) {
  const tool = tools[random.below(tools.length)];
  const words = tool.description.split(/\W+/).filter((w) => w.length > 3);
  const start = random.below(Math.max(1, words.length - 4));
  queries.push(words.slice(start, start + 2 + random.below(4)).join(" ") || tool.name);
}
for (const q of queries.slice(0, 200)) index.search(q, { limit: 10 }); // warm-up
const latencies = queries.map((q) => time(() => index.search(q, { limit: 10 }))).sort((a, b) => a - b);
const cpuLatencies = queries.map((q) => cpuTime(() => index.search(q, { limit: 10 }))).sort((a, b) => a - b);
const filtered = queries
  .map((q) => time(() => index.search(q, { limit: 10, filter: (t) => t.name.length % 2 === 0 })))
  .sort((a, b) => a - b);

// Keeping current: replace one tool's description, remove and re-add one, sync a 1% change.
const replaceTimes = [];
const removeTimes = [];
for (let i = 0; i < 200; i++) {
  const tool = tools[random.below(tools.length)];
  replaceTimes.push(time(() => index.upsert({ ...tool, description: `${tool.description} (v${i})` })));
  removeTimes.push(time(() => index.remove(tool.name)));
  index.upsert(tool);
}
// Fresh objects, as a catalog reloaded after a change gives: the index compares their text.
const changed = structuredClone(tools).map((tool, i) =>
  i % 100 === 0 ? { ...tool, description: `${tool.description} Changed.` } : tool,
);
const syncTime = time(() => index.sync(changed));

const summary = {
  tools: count,
  buildMs: Number(median(buildTimes).toFixed(0)),
  heapMiB: gc ? Number(heapMiB.toFixed(1)) : null,
  searches,
  searchP50Ms: Number(percentile(latencies, 0.5).toFixed(2)),
  searchP99Ms: Number(percentile(latencies, 0.99).toFixed(2)),
  searchCpuP50Ms: Number(percentile(cpuLatencies, 0.5).toFixed(2)),
  searchCpuP99Ms: Number(percentile(cpuLatencies, 0.99).toFixed(2)),
  filteredSearchP50Ms: Number(percentile(filtered, 0.5).toFixed(2)),
  replaceOneMs: Number(median(replaceTimes).toFixed(3)),
  removeOneMs: Number(median(removeTimes).toFixed(3)),
  syncOnePercentMs: Number(syncTime.toFixed(0)),
};
console.log(
  `index build, ${count} tools: ${summary.buildMs} ms (median of 3); heap kept: ${summary.heapMiB} MiB`,
);
console.log(
  `search, ${searches} queries: p50 ${summary.searchP50Ms} ms, p99 ${summary.searchP99Ms} ms (wall)`,
);
console.log(`search, CPU time: p50 ${summary.searchCpuP50Ms} ms, p99 ${summary.searchCpuP99Ms} ms`);
console.log(`search with a filter refusing about half: p50 ${summary.filteredSearchP50Ms} ms`);
console.log(
  `replace one tool: ${summary.replaceOneMs} ms; remove one: ${summary.removeOneMs} ms (medians of 200)`,
);
console.log(
  `sync with 1% of the tools changed: ${summary.syncOnePercentMs} ms (a rebuild: ${summary.buildMs} ms)`,
);
console.log(JSON.stringify(summary));
