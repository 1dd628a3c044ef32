import { readdirSync, readFileSync } from "node:fs";

/** The highest memory seen while a sampler ran, in MiB. */
export interface MemoryPeaks {
  /** Resident memory of the root process's descendants that belong to a run, summed (its sandbox and program). */
  descendantsRssMb: number;
  /** Growth of the host's shared memory (`Shmem` in /proc/meminfo: tmpfs and shared memory) over its start. */
  hostShmemGrowthMb: number;
}

/** A running sampler; `stop` ends it and returns the peaks. */
export interface MemorySampler {
  stop(): MemoryPeaks;
}

function meminfoKb(field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync("/proc/meminfo", "utf8"));
  return Number(match?.[1] ?? 0);
}

/** Marks the processes of a run: bwrap names the run's work directory, and so does the program's argv. */
const RUN_MARK = "/trestle-exec-";

interface ProcessEntry {
  ppid: number;
  rssKb: number;
  ofRun: boolean;
}

/** Parent pid, resident KiB and whether it belongs to a run, of every process (vanishing ones skipped). */
function processTable(): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
      const ofRun = readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(RUN_MARK);
      table.set(Number(entry), { ppid, rssKb, ofRun });
    } catch {
      // Gone while we looked.
    }
  }
  return table;
}

function descendantsRssKb(rootPid: number): number {
  const table = processTable();
  let total = 0;
  for (const [pid, { rssKb, ofRun }] of table) {
    if (!ofRun) continue;
    // Walk up to the root; a process under it counts (the root itself does not: it is the test or the router).
    for (let parent = table.get(pid)?.ppid; parent !== undefined && parent > 1; ) {
      if (parent === rootPid) {
        total += rssKb;
        break;
      }
      parent = table.get(parent)?.ppid;
    }
  }
  return total;
}

/**
 * Samples, every `intervalMs` until stopped, the resident memory of `rootPid`'s descendants that belong to a
 * code execution run and the host's shared memory, keeping the highest of each. A program that fills memory the sandbox does not bound shows up
 * in one of the two: anonymous memory (buffers) in its resident set, tmpfs files in `Shmem`.
 */
export function sampleMemory(rootPid: number, intervalMs = 20): MemorySampler {
  const shmemStartKb = meminfoKb("Shmem");
  let peakRssKb = 0;
  let peakShmemKb = shmemStartKb;
  const sample = () => {
    peakRssKb = Math.max(peakRssKb, descendantsRssKb(rootPid));
    peakShmemKb = Math.max(peakShmemKb, meminfoKb("Shmem"));
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return {
        descendantsRssMb: Math.round(peakRssKb / 1024),
        hostShmemGrowthMb: Math.round((peakShmemKb - shmemStartKb) / 1024),
      };
    },
  };
}
