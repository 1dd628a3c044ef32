import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

function statusField(pid: number, field: "VmRSS" | "VmHWM" | "RssAnon"): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set size of a process now, in bytes; undefined when it is gone. */
export function readRss(pid: number): number | undefined {
  return statusField(pid, "VmRSS");
}

/**
 * The anonymous part of a process's RSS now (heap, stacks, WebAssembly memory), bytes: RSS without the pages of
 * files it mapped, such as the node binary, which every node process on the machine shares.
 */
export function readAnonRss(pid: number): number | undefined {
  return statusField(pid, "RssAnon");
}

/**
 * The proportional set size of a process now (`Pss` in `/proc/<pid>/smaps_rollup`), bytes: its private pages plus
 * its share of each page it shares (the node binary's pages count a quarter in each of four node processes). The
 * sum over processes is what they take from the machine together; undefined when the process is gone or the
 * kernel has no `smaps_rollup`.
 */
export function readPss(pid: number): number | undefined {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The pids of a process's children alive now. */
export function childrenOf(pid: number): number[] {
  return processTree(pid).filter((p) => p !== pid && readStat(p)?.ppid === pid);
}

/** Peak resident set size of a process since it started (VmHWM), in bytes; undefined when it is gone. */
export function readPeakRss(pid: number): number | undefined {
  return statusField(pid, "VmHWM");
}

interface ProcStat {
  ppid: number;
  /** utime + stime. */
  selfMs: number;
  /** selfMs + cutime + cstime: with the CPU of the children it reaped. */
  cpuMs: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: the fields start after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // utime, stime, and cutime, cstime: the CPU of children it reaped, so that a child that ended between two
    // readings still counts (its time moved into its parent's).
    const self = Number(fields[11]) + Number(fields[12]);
    const ticks = self + Number(fields[13]) + Number(fields[14]);
    return {
      ppid: Number(fields[1]),
      selfMs: (self * 1000) / TICKS_PER_SECOND,
      cpuMs: (ticks * 1000) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

/** The pids of a process and all its descendants alive now. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU time (user + system) of one process alone, in milliseconds, at a 10 ms resolution. */
export function readSelfCpuMs(pid: number): number {
  return readStat(pid)?.selfMs ?? 0;
}

/**
 * CPU time (user + system) a process and its descendants have used, in milliseconds, at a 10 ms resolution.
 * Children that ended and were reaped count through their parent, so the difference of two readings is the CPU
 * the tree used in between.
 */
export function readTreeCpuMs(root: number): number {
  let total = 0;
  for (const pid of processTree(root)) total += readStat(pid)?.cpuMs ?? 0;
  return total;
}

/** Samples the largest summed RSS of a set of processes every `intervalMs` until stopped. */
export function sampleRss(pids: () => readonly number[], intervalMs = 100): { stop(): number } {
  let peak = 0;
  const take = () => {
    let sum = 0;
    for (const pid of pids()) sum += readRss(pid) ?? 0;
    peak = Math.max(peak, sum);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}
