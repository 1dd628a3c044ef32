import type { GitState, MachineDescription } from "./machine.js";
import type { CodeExecutionMeasurement } from "./scenarios/code-execution.js";
import type { CodeModeMeasurement } from "./scenarios/code-mode.js";
import type { CrossReplicaMeasurement } from "./scenarios/cross-replica.js";
import type { IdentityCostResult } from "./scenarios/identity-cost.js";
import type { IdleFootprintMeasurement } from "./scenarios/idle-footprint.js";
import type { IdleSessionsMeasurement } from "./scenarios/idle-sessions.js";
import type { LoadVariantsResult } from "./scenarios/load-variants.js";
import type { MemoryUnderLoadMeasurement } from "./scenarios/memory-under-load.js";
import type { PathSection, PathSectionName } from "./scenarios/paths/path-section.js";
import type { RouterProfileMeasurement } from "./scenarios/router-profile.js";
import type { ThroughputResult } from "./scenarios/throughput.js";
import type { ToolsListMeasurement } from "./scenarios/tools-list.js";

/** A headline ratio or figure, with its target from issue 8. */
export interface Headline {
  name: string;
  value: number;
  unit: string;
  /** e.g. "≥ 1.0". */
  target: string;
  /** Undefined for a figure shown for context, with no target. */
  met?: boolean;
  /** How it was computed. */
  detail: string;
}

/** A part of the benchmark that could not run, and why. */
export interface Skipped {
  skipped: string;
}

/** Everything one run of the harness measured: what `docs/benchmarks.json` holds. */
export interface BenchReport {
  mode: "full" | "quick";
  startedAt: string;
  durationSeconds: number;
  machine: MachineDescription;
  git: GitState;
  settings: {
    concurrencies: number[];
    rounds: number;
    warmupMs: number;
    durationMs: number;
    /** Unmeasured load at c16 each configuration served before round 1 (absent in reports from before it was kept). */
    preWarmMs?: number;
    /** `taskset` CPU lists of the server side and the load generator, or why the run was not pinned. */
    cpuPinning?: { server: string; load: string } | { unpinned: string };
  };
  throughput: ThroughputResult;
  toolsList: ToolsListMeasurement[] | Skipped;
  idleSessions: IdleSessionsMeasurement[] | Skipped;
  /** An idle `pnpm start` router (embedded store, built-in services), fresh and reopened data directory. */
  idleFootprint?: IdleFootprintMeasurement[] | Skipped;
  codeExecution: CodeExecutionMeasurement | Skipped;
  /** trestle-grpc watched and with documents for payloads, beside bound-mcp and the floor with the same documents. */
  loadVariants?: LoadVariantsResult | Skipped;
  /** The cost of identity: calls/s with a static token vs an OAuth JWT and five CEL rules. */
  identityCost?: IdentityCostResult | Skipped;
  /** Code mode and tool search (issue 51): definition tokens, round trips vs one program, search latency, CPU. */
  codeMode?: CodeModeMeasurement | Skipped;
  /**
   * Every other path a client takes through the router, each beside its bound or peer: a stdio and an HTTP
   * forward, the A2A front, a sandboxed program and a forward's start, tracing on and off.
   */
  paths?: Partial<Record<PathSectionName, PathSection | Skipped>>;
  crossReplica: CrossReplicaMeasurement | Skipped;
  profile: RouterProfileMeasurement | Skipped;
  /** The soak: the router's RSS over a long load at c16 and its growth per call (issue 19). */
  memoryUnderLoad?: MemoryUnderLoadMeasurement | Skipped;
  headlines: Headline[];
  /** Configurations or scenarios that failed, with their reason. */
  notes: string[];
}

/** True when a section holds a measurement rather than the reason it was skipped. */
export function measured<T extends object>(value: T | Skipped): value is T {
  return !("skipped" in value);
}
