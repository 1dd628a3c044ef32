import type { Skipped } from "../../bench-report.js";
import { runA2aFront } from "./a2a-front.js";
import { runAuditCost } from "./audit-cost.js";
import { runHttpForward } from "./http-forward.js";
import type { PathComparisonOptions } from "./path-comparison.js";
import { PATH_SECTION_NAMES, type PathSection, type PathSectionName } from "./path-section.js";
import { runSandboxedExec } from "./sandboxed-exec.js";
import { runStdioForward } from "./stdio-forward.js";
import { runTracingCost } from "./tracing-cost.js";

/** Settings of {@link runPathSections}. */
export interface PathSectionsOptions {
  /** The concurrency of the load comparisons. */
  concurrency: number;
  rounds: number;
  warmupMs: number;
  durationMs: number;
  /** Starts of a sandboxed stdio forward and of each bare interpreter. */
  starts: number;
  /** Whether a section runs (`--only`). */
  selected(name: PathSectionName): boolean;
  log(line: string): void;
  /** Runs a section, turning a failure into a note and a skipped section (the harness's `attempt`). */
  attempt(name: string, run: () => Promise<PathSection>): Promise<PathSection | Skipped>;
}

/** Runs the selected path sections one after the other; an unselected one is recorded as skipped. */
export async function runPathSections(
  options: PathSectionsOptions,
): Promise<Partial<Record<PathSectionName, PathSection | Skipped>>> {
  const comparison: PathComparisonOptions = {
    concurrency: options.concurrency,
    rounds: options.rounds,
    warmupMs: options.warmupMs,
    durationMs: options.durationMs,
    log: options.log,
  };
  const runners: Record<PathSectionName, [string, () => Promise<PathSection>]> = {
    "stdio-forward": [
      `stdio forward vs mcp-proxy (c${options.concurrency})`,
      () => runStdioForward(comparison),
    ],
    "http-forward": [
      `HTTP forward vs the bare server (c${options.concurrency})`,
      () => runHttpForward(comparison),
    ],
    a2a: [
      `A2A front → gRPC vs a bare @a2a-js/sdk agent (c${options.concurrency})`,
      () => runA2aFront(comparison),
    ],
    sandbox: [
      "sandboxed print(1) through execute_code, and a sandboxed stdio forward's start",
      () => runSandboxedExec({ ...comparison, starts: options.starts }),
    ],
    tracing: [
      `router CPU per call, traced at 100 % vs untraced (c${options.concurrency})`,
      () => runTracingCost(comparison),
    ],
    audit: [
      `router CPU per call, audit trail on vs off (c${options.concurrency})`,
      () => runAuditCost(comparison),
    ],
  };
  const sections: Partial<Record<PathSectionName, PathSection | Skipped>> = {};
  for (const name of PATH_SECTION_NAMES) {
    const [title, run] = runners[name];
    sections[name] = options.selected(name)
      ? await options.attempt(title, run)
      : { skipped: "not in --only" };
  }
  return sections;
}
