import { Code, TrestleError } from "@trestle/core";
import { type CgroupFacts, findCgroupLayout, readCgroupFacts } from "./cgroup-layout.js";
import { createRunCgroups, type RunCgroups } from "./run-cgroups.js";

/**
 * What bounds each run's memory on this host, chosen at start.
 *
 * - `cgroup`: each run gets a cgroup of its own whose memory limit counts everything the run makes the kernel
 *   hold (processes, tmpfs files, shared memory), plus a pids limit where that controller is available.
 * - `address-space`: no usable cgroup; each process of a run has RLIMIT_AS and the sandbox's tmpfs mounts are
 *   sized within the limit. `reason` says why there is no cgroup.
 */
export type MemoryBound =
  | { mode: "cgroup"; limitMb: number; cgroupVersion: 1 | 2; parent: string; pidsLimited: boolean }
  | { mode: "address-space"; limitMb: number; reason: string };

/** What {@link chooseMemoryBound} decides from. */
export interface MemoryBoundOptions {
  /** A run's memory limit in MiB. */
  memoryLimitMb: number;
  /** Processes and threads of a run's program (its sandbox adds two of bwrap's own). */
  maxProcesses: number;
  /** A directory to make the runs' cgroups in; `false` for none; default: found from the engine's own cgroup. */
  cgroup?: string | false;
  /** False when programs run without the sandbox (its held start is what places a run in its cgroup). */
  sandboxed: boolean;
  /** The kernel's view of this process (tests give their own); default read from /proc/self. */
  facts?: CgroupFacts;
}

/** The bound, and the runs' cgroups when the bound is `cgroup`. */
export interface ChosenMemoryBound {
  bound: MemoryBound;
  cgroups: RunCgroups | undefined;
}

/**
 * Chooses how runs' memory is bounded: a cgroup per run where one can be made (see `findCgroupLayout`), tried
 * once here (a cgroup is made with the limits and removed), else the address-space fallback.
 *
 * @throws TrestleError FailedPrecondition when `cgroup` names a directory the engine cannot use: an operator
 *   who asked for cgroups gets them or no engine.
 */
export function chooseMemoryBound(options: MemoryBoundOptions): ChosenMemoryBound {
  const limitMb = options.memoryLimitMb;
  const fallback = (reason: string): ChosenMemoryBound => ({
    bound: { mode: "address-space", limitMb, reason },
    cgroups: undefined,
  });
  if (!options.sandboxed) return fallback("programs run without the sandbox");
  if (options.cgroup === false) return fallback("cgroups turned off (--no-cgroup)");
  const explicit = options.cgroup;
  const refuse = (reason: string) =>
    new TrestleError(`The run cgroups cannot be made in ${explicit}: ${reason}`, Code.FailedPrecondition);
  const search = findCgroupLayout(options.facts ?? readCgroupFacts(), explicit);
  if ("reason" in search) {
    if (explicit !== undefined) throw refuse(search.reason);
    return fallback(search.reason);
  }
  const cgroups = createRunCgroups(search.layout, {
    memoryBytes: limitMb * 1024 * 1024,
    maxPids: options.maxProcesses + 2,
  });
  try {
    cgroups.selfTest();
    cgroups.removeLeftovers();
  } catch (error) {
    const reason = `cgroup v${search.layout.version}: a run cgroup could not be made in ${search.layout.memoryParent} (${error instanceof Error ? error.message : String(error)})`;
    if (explicit !== undefined) throw refuse(reason);
    return fallback(reason);
  }
  return {
    bound: {
      mode: "cgroup",
      limitMb,
      cgroupVersion: search.layout.version,
      parent: search.layout.memoryParent,
      pidsLimited: search.layout.pidsParent !== undefined,
    },
    cgroups,
  };
}

/** The start-up line that says which bound holds, for the engine's log. */
export function describeMemoryBound(bound: MemoryBound, maxConcurrentRuns: number): string {
  if (bound.mode === "cgroup") {
    return `memory bound: a cgroup v${bound.cgroupVersion} per run under ${bound.parent}, ${bound.limitMb} MiB each${bound.pidsLimited ? " (and a pids limit)" : ""}; at most ${maxConcurrentRuns} runs at once, so ${bound.limitMb * maxConcurrentRuns} MiB in all`;
  }
  return `memory bound: no cgroup (${bound.reason}), so ${bound.limitMb} MiB of address space per process and tmpfs mounts sized within ${bound.limitMb} MiB per run; at most ${maxConcurrentRuns} runs at once`;
}
