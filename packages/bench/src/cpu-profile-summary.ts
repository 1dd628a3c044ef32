/** The parts of a V8 `.cpuprofile` (the format `node --cpu-prof` writes) that the summary reads. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
    children?: number[];
  }>;
  /** Microseconds on the monotonic clock (the clock of `process.hrtime`). */
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds between one sample and the previous one. */
  timeDeltas: number[];
}

/** Time spent in one function, file or package. */
export interface CostEntry {
  name: string;
  /** Microseconds. */
  us: number;
  /** Share of the busy (non-idle) time, 0..1. */
  share: number;
}

/** A profile summed up by self time. */
export interface CpuProfileSummary {
  /** Microseconds covered by the samples counted. */
  totalUs: number;
  /** Of which not idle: the process was running JavaScript, native code or the garbage collector. */
  busyUs: number;
  samples: number;
  /** Self time by package or area: a node_modules package, a workspace package, node's own code, GC. */
  byArea: CostEntry[];
  /** Self time by source file. */
  byFile: CostEntry[];
  /** Self time by function (name, file and line). */
  byFunction: CostEntry[];
  /** Inclusive time (self plus callees) by function. */
  byFunctionInclusive: CostEntry[];
}

/** Options for {@link summariseCpuProfile}. */
export interface SummariseOptions {
  /** Count only samples taken from this monotonic time on, µs (e.g. the start of the measured load). */
  fromUs?: number;
  /** …and up to this one. */
  toUs?: number;
  /** Entries kept per list. Default 30. */
  top?: number;
}

const SPECIAL = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);

/** A short, stable name for a script URL: the package path from node_modules, the workspace path, or node's. */
export function shortUrl(url: string): string {
  if (!url) return "";
  if (url.startsWith("node:")) return url;
  const path = url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("/node_modules/");
  if (modules >= 0) return path.slice(modules + "/node_modules/".length);
  const workspace = /\/packages\/([^/]+)\/(.*)$/.exec(path);
  if (workspace) return `packages/${workspace[1]}/${workspace[2]}`;
  return path;
}

/** The package or area a script belongs to. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return SPECIAL.has(functionName) ? functionName : "(native)";
  if (url.startsWith("node:")) return "node (built-in modules)";
  const short = shortUrl(url);
  if (short.startsWith("packages/")) return `@trestle/${short.split("/")[1]}`;
  const parts = short.split("/");
  if (short !== url.replace(/^file:\/\//, "")) {
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
  }
  return short;
}

function ranked(map: Map<string, number>, busyUs: number, top: number): CostEntry[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, us, share: busyUs > 0 ? us / busyUs : 0 }));
}

/**
 * Sums a CPU profile by self time per area, file and function, and by inclusive time per function. Each sample
 * counts for the time until the next one. `(idle)` samples are left out of the busy time and of the lists.
 */
export function summariseCpuProfile(profile: CpuProfile, options: SummariseOptions = {}): CpuProfileSummary {
  const top = options.top ?? 30;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (id: number) => {
    const frame = (byId.get(id) as CpuProfile["nodes"][number]).callFrame;
    const name = frame.functionName || "(anonymous)";
    return frame.url ? `${name} ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : name;
  };

  const area = new Map<string, number>();
  const file = new Map<string, number>();
  const fn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalUs = 0;
  let busyUs = 0;
  let counted = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    const duration = profile.timeDeltas[i + 1] ?? 0;
    if (options.fromUs !== undefined && time < options.fromUs) continue;
    if (options.toUs !== undefined && time > options.toUs) continue;
    const id = profile.samples[i] as number;
    const node = byId.get(id);
    if (!node) continue;
    counted++;
    totalUs += duration;
    const { functionName, url } = node.callFrame;
    if (functionName === "(idle)") continue;
    busyUs += duration;
    const areaName = areaOf(url, functionName);
    area.set(areaName, (area.get(areaName) ?? 0) + duration);
    const fileName = url ? shortUrl(url) : functionName;
    file.set(fileName, (file.get(fileName) ?? 0) + duration);
    const name = label(id);
    fn.set(name, (fn.get(name) ?? 0) + duration);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const stackName = label(at);
      if (stackName === "(root)" || seen.has(stackName)) continue;
      seen.add(stackName);
      inclusive.set(stackName, (inclusive.get(stackName) ?? 0) + duration);
    }
  }
  return {
    totalUs,
    busyUs,
    samples: counted,
    byArea: ranked(area, busyUs, top),
    byFile: ranked(file, busyUs, top),
    byFunction: ranked(fn, busyUs, top),
    byFunctionInclusive: ranked(inclusive, busyUs, top),
  };
}

/** The summary as markdown tables, with µs per call when `calls` is given. */
export function cpuProfileMarkdown(summary: CpuProfileSummary, calls?: number, rows = 15): string {
  const perCall = (us: number) => (calls ? `${(us / calls).toFixed(1)}` : "–");
  const table = (title: string, entries: CostEntry[]) =>
    [
      `| ${title} | share of busy CPU | µs per call |`,
      "|---|---:|---:|",
      ...entries
        .slice(0, rows)
        .map(
          (e) =>
            `| \`${e.name.replace(/\|/g, "\\|")}\` | ${(e.share * 100).toFixed(1)} % | ${perCall(e.us)} |`,
        ),
    ].join("\n");
  return [
    `Busy CPU ${(summary.busyUs / 1000).toFixed(0)} ms of ${(summary.totalUs / 1000).toFixed(0)} ms sampled` +
      (calls ? ` over ${calls} calls: **${perCall(summary.busyUs)} µs per call**.` : "."),
    "",
    table("area (self time)", summary.byArea),
    "",
    table("file (self time)", summary.byFile),
    "",
    table("function (self time)", summary.byFunction),
    "",
    table("function (inclusive time)", summary.byFunctionInclusive),
  ].join("\n");
}
