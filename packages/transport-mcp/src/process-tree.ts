import { readdirSync, readFileSync } from "node:fs";

/**
 * The pids of every live descendant of `root`, read from `/proc` (empty where there is no `/proc`). A server
 * started through a wrapper (`npx`, `uvx`, a shell script) runs as a grandchild: ending only the direct child
 * would leave it behind, so the pids are taken before the child is ended.
 */
export function descendantPids(root: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // The command name (field 2) is in parentheses and may hold spaces: the parent pid follows the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const out: number[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** True when a process with this pid exists (and is not a zombie waiting to be reaped). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Sends SIGKILL to each pid still alive; a pid that is already gone is skipped. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone: nothing to end.
    }
  }
}
