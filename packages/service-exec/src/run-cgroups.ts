import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CgroupLayout } from "./cgroup-layout.js";

/** What each run's cgroup allows. */
export interface RunCgroupLimits {
  /** Memory of the whole run: its processes, its tmpfs files and shared memory, its kernel objects. */
  memoryBytes: number;
  /** Processes and threads of the whole run (bubblewrap's own included). */
  maxPids: number;
}

/** One run's cgroup (with v1, one per hierarchy: memory, and pids where available). */
export interface RunCgroup {
  /** Moves processes into it; reject when the kernel refuses (the run must then not start). */
  place(pids: readonly number[]): Promise<void>;
  /** True when the kernel killed a process of the run because the run reached its memory limit. */
  reachedMemoryLimit(): Promise<boolean>;
  /**
   * Kills whatever is still in it and removes it. Rejects when it could not be removed within a few
   * seconds (an empty cgroup is left behind; nothing runs in it).
   */
  remove(): Promise<void>;
}

/** Makes and removes the runs' cgroups of one engine. */
export interface RunCgroups {
  readonly layout: CgroupLayout;
  /** A new cgroup for one run, with its limits set. */
  create(): Promise<RunCgroup>;
  /**
   * Makes a cgroup with the limits and removes it again, synchronously: used at start, so an engine that cannot
   * make its cgroups learns it then rather than at its first run.
   *
   * @throws Error saying what the kernel refused.
   */
  selfTest(): void;
  /**
   * Removes the empty run cgroups an engine that is gone left behind (one that exited while a run's cleanup
   * was still going); returns their names. The kernel refuses to remove a cgroup that still holds a process,
   * and those of engines still alive are not touched.
   */
  removeLeftovers(): string[];
}

/** Names of run cgroups: `trestle-exec-<engine pid>-<n>`. */
const RUN_CGROUP_NAME = /^trestle-exec-(\d+)-/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's.
    return isErrno(error, "EPERM");
  }
}

/** How long {@link RunCgroup.remove} waits for the last processes to be gone. */
const REMOVE_WAIT_MS = 3_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

/** The files that set a run's limits, in the order the kernel needs them (v1: memsw after memory). */
function limitFiles(
  layout: CgroupLayout,
  limits: RunCgroupLimits,
  memoryDir: string,
  pidsDir: string | undefined,
): [string, string][] {
  const memory = String(limits.memoryBytes);
  const files: [string, string][] =
    layout.version === 2
      ? [
          [join(memoryDir, "memory.max"), memory],
          // The limit is RAM: no swap to grow into. Optional: absent without swap accounting.
          [join(memoryDir, "memory.swap.max"), "0"],
          // At the limit the kernel ends the whole sandbox, not one process of it.
          [join(memoryDir, "memory.oom.group"), "1"],
        ]
      : [
          [join(memoryDir, "memory.limit_in_bytes"), memory],
          // RAM and swap together, where the kernel accounts swap.
          [join(memoryDir, "memory.memsw.limit_in_bytes"), memory],
        ];
  if (pidsDir !== undefined) files.push([join(pidsDir, "pids.max"), String(limits.maxPids)]);
  return files;
}

/** Files that may be missing on a given kernel or configuration; every other limit must be set. */
const OPTIONAL = new Set(["memory.swap.max", "memory.memsw.limit_in_bytes", "memory.oom.group"]);

function isOptional(file: string): boolean {
  return OPTIONAL.has(file.slice(file.lastIndexOf("/") + 1));
}

async function pidsIn(dir: string): Promise<number[] | undefined> {
  try {
    return (await readFile(join(dir, "cgroup.procs"), "utf8")).split("\n").filter(Boolean).map(Number);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  }
}

/** Kills every process in `dir` until none is left, then removes it (bounded by {@link REMOVE_WAIT_MS}). */
async function emptyAndRemove(dir: string): Promise<void> {
  const deadline = Date.now() + REMOVE_WAIT_MS;
  for (;;) {
    const pids = await pidsIn(dir);
    if (pids === undefined) return;
    if (pids.length === 0) {
      try {
        await rmdir(dir);
        return;
      } catch (error) {
        // Busy while the kernel finishes tearing the last processes down.
        if (!isErrno(error, "EBUSY") || Date.now() > deadline) throw error;
      }
    } else if (existsSync(join(dir, "cgroup.kill"))) {
      await writeFile(join(dir, "cgroup.kill"), "1");
    } else {
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`${dir} still holds processes ${pids.join(", ")} after ${REMOVE_WAIT_MS} ms`);
    }
    await sleep(pids.length === 0 ? 2 : 10);
  }
}

/** How many times the kernel's out-of-memory killer acted in `dir` (v1: memory.oom_control, v2: memory.events). */
async function oomKills(layout: CgroupLayout, dir: string): Promise<number> {
  const file = join(dir, layout.version === 2 ? "memory.events" : "memory.oom_control");
  try {
    const match = /^oom_kill (\d+)$/m.exec(await readFile(file, "utf8"));
    return Number(match?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * The cgroups of one engine's runs, under `layout`'s directories, named `trestle-exec-<engine pid>-<n>`. Each run
 * gets its own, limited to `limits`: memory there counts everything the run makes the kernel hold (its
 * processes' memory, its tmpfs files and shared memory), so the bound holds however a program allocates.
 */
export function createRunCgroups(layout: CgroupLayout, limits: RunCgroupLimits): RunCgroups {
  const prefix = `trestle-exec-${process.pid}`;
  let made = 0;

  function directories(name: string): { memory: string; pids: string | undefined; all: string[] } {
    const memory = join(layout.memoryParent, name);
    const pids =
      layout.pidsParent === undefined
        ? undefined
        : layout.version === 2
          ? memory
          : join(layout.pidsParent, name);
    return { memory, pids, all: pids === undefined || pids === memory ? [memory] : [memory, pids] };
  }

  async function create(): Promise<RunCgroup> {
    made += 1;
    const dirs = directories(`${prefix}-${made}`);
    const removeAll = () => Promise.all(dirs.all.map((dir) => emptyAndRemove(dir))).then(() => undefined);
    try {
      for (const dir of dirs.all) await mkdir(dir);
      for (const [file, value] of limitFiles(layout, limits, dirs.memory, dirs.pids)) {
        try {
          await writeFile(file, value);
        } catch (error) {
          if (!(isOptional(file) && (isErrno(error, "ENOENT") || isErrno(error, "EINVAL")))) throw error;
        }
      }
    } catch (error) {
      await removeAll().catch(() => undefined);
      throw error;
    }
    return {
      async place(pids) {
        for (const dir of dirs.all) {
          for (const pid of pids) await writeFile(join(dir, "cgroup.procs"), String(pid));
        }
      },
      async reachedMemoryLimit() {
        return (await oomKills(layout, dirs.memory)) > 0;
      },
      remove: removeAll,
    };
  }

  function selfTest(): void {
    const dirs = directories(`${prefix}-self-test`);
    try {
      for (const dir of dirs.all) mkdirSync(dir);
      for (const [file, value] of limitFiles(layout, limits, dirs.memory, dirs.pids)) {
        try {
          writeFileSync(file, value);
        } catch (error) {
          if (!(isOptional(file) && (isErrno(error, "ENOENT") || isErrno(error, "EINVAL")))) throw error;
        }
      }
    } finally {
      for (const dir of dirs.all.reverse()) {
        try {
          rmdirSync(dir);
        } catch {
          // Never made.
        }
      }
    }
  }

  function removeLeftovers(): string[] {
    const removed: string[] = [];
    const parents = [
      layout.memoryParent,
      ...(layout.version === 1 && layout.pidsParent ? [layout.pidsParent] : []),
    ];
    for (const parent of parents) {
      let names: string[];
      try {
        names = readdirSync(parent);
      } catch {
        continue;
      }
      for (const name of names) {
        const engine = Number(RUN_CGROUP_NAME.exec(name)?.[1] ?? 0);
        if (engine <= 0 || engine === process.pid || alive(engine)) continue;
        try {
          rmdirSync(join(parent, name));
          removed.push(join(parent, name));
        } catch {
          // Still holds a process, or not a cgroup of ours after all: left alone.
        }
      }
    }
    return removed;
  }

  return { layout, create, selfTest, removeLeftovers };
}
