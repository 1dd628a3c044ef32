import { accessSync, constants, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";

/** Where runs' cgroups are made. */
export interface CgroupLayout {
  /** The cgroup version of the memory controller used. */
  version: 1 | 2;
  /** The directory each run's memory cgroup is made in (with v2, the run's one cgroup). */
  memoryParent: string;
  /**
   * Where each run's pids cgroup is made: with v1 the engine's own directory of the pids hierarchy, when it may
   * write there; with v2 `memoryParent`, when the pids controller is enabled there; else none.
   */
  pidsParent: string | undefined;
}

/** A layout, or why there is none. */
export type CgroupSearch = { layout: CgroupLayout } | { reason: string };

/** What the kernel says about a process's cgroups (from /proc/self), given explicitly in tests. */
export interface CgroupFacts {
  /** The text of /proc/self/mountinfo. */
  mountinfo: string;
  /** The text of /proc/self/cgroup. */
  selfCgroup: string;
  /** The engine's own process id. */
  pid: number;
}

/** A mounted file system, as /proc/self/mountinfo describes it. */
export interface MountEntry {
  /** The directory of the file system that is mounted (for a cgroup hierarchy: the cgroup at the mount point). */
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** One line of /proc/self/cgroup: a hierarchy's controllers (none for v2) and the process's cgroup in it. */
export interface CgroupMembership {
  controllers: string[];
  path: string;
}

/** The leaf a delegated cgroup v2 engine moves itself into, so that its own cgroup may hold the runs' cgroups. */
export const ENGINE_LEAF = "trestle-exec-engine";

/** Reads {@link CgroupFacts} of this process. */
export function readCgroupFacts(): CgroupFacts {
  const read = (path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  };
  return { mountinfo: read("/proc/self/mountinfo"), selfCgroup: read("/proc/self/cgroup"), pid: process.pid };
}

/** mountinfo escapes space, tab, newline and backslash in paths as octal. */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Parses /proc/self/mountinfo (proc(5)); malformed lines are skipped. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const separator = line.indexOf(" - ");
    if (separator < 0) continue;
    const fields = line.slice(0, separator).split(" ");
    const [fsType, , options] = line.slice(separator + 3).split(" ");
    if (fields.length < 5 || !fsType) continue;
    entries.push({
      root: unescapeMountPath(fields[3] ?? ""),
      mountPoint: unescapeMountPath(fields[4] ?? ""),
      fsType,
      superOptions: (options ?? "").split(","),
    });
  }
  return entries;
}

/** Parses /proc/self/cgroup (cgroups(7)): `id:controllers:path`, `0::path` being cgroup v2. */
export function parseProcCgroup(text: string): CgroupMembership[] {
  const memberships: CgroupMembership[] = [];
  for (const line of text.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    memberships.push({ controllers: (match[1] ?? "").split(",").filter(Boolean), path: match[2] ?? "" });
  }
  return memberships;
}

/** The directory of cgroup `path` under the mount of its hierarchy, when the mount shows it. */
function directoryIn(mount: MountEntry, path: string): string | undefined {
  if (!isAbsolute(path)) return undefined;
  let below: string;
  if (mount.root === "/") below = path;
  else if (path === mount.root || path.startsWith(`${mount.root}/`)) below = path.slice(mount.root.length);
  else return undefined;
  // join keeps a trailing slash ("/sys/fs/cgroup/pids/" for the root cgroup); a directory name has none.
  return join(mount.mountPoint, below).replace(/(.)\/$/, "$1");
}

function words(path: string): string[] {
  try {
    return readFileSync(path, "utf8").split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Makes cgroup v2 directory `dir` able to hold run cgroups with a memory limit: its cgroup.subtree_control must
 * enable `memory` (and `pids` where available). When it does not yet and the engine may write there, the engine
 * enables them; a cgroup holding processes cannot enable controllers for its children, so when the only process
 * in `dir` is the engine itself (a systemd service with `Delegate=yes`), the engine first moves itself into the
 * leaf {@link ENGINE_LEAF}, as systemd's delegation rules ask. Anything else in `dir` is left alone.
 */
function prepareV2Parent(dir: string, pid: number): CgroupSearch {
  const controllers = words(join(dir, "cgroup.controllers"));
  if (!controllers.includes("memory")) {
    return {
      reason: `cgroup v2: ${dir} has no memory controller (its parent's cgroup.subtree_control does not enable it)`,
    };
  }
  const wanted = controllers.includes("pids") ? ["memory", "pids"] : ["memory"];
  const layout = (pids: boolean): CgroupSearch => ({
    layout: { version: 2, memoryParent: dir, pidsParent: pids ? dir : undefined },
  });
  const enabled = words(join(dir, "cgroup.subtree_control"));
  if (wanted.every((controller) => enabled.includes(controller))) {
    return writable(dir)
      ? layout(wanted.includes("pids"))
      : { reason: `cgroup v2: ${dir} is not writable by this engine (not delegated to its user)` };
  }
  if (!writable(dir) || !writable(join(dir, "cgroup.subtree_control"))) {
    return { reason: `cgroup v2: ${dir} is not delegated to this engine (not writable by its user)` };
  }
  const members = words(join(dir, "cgroup.procs")).map(Number);
  const others = members.filter((member) => member !== pid);
  if (others.length > 0) {
    return {
      reason: `cgroup v2: ${dir} holds ${others.length} other process(es) besides this engine, so it cannot hold the runs' cgroups; give the engine a cgroup of its own (systemd: Delegate=yes) or name one with --cgroup`,
    };
  }
  const leaf = join(dir, ENGINE_LEAF);
  try {
    if (members.includes(pid)) {
      mkdirSync(leaf, { recursive: true });
      writeFileSync(join(leaf, "cgroup.procs"), String(pid));
    }
    writeFileSync(join(dir, "cgroup.subtree_control"), wanted.map((c) => `+${c}`).join(" "));
  } catch (error) {
    if (members.includes(pid)) {
      // Back where it was, so the engine leaves its cgroup as it found it.
      try {
        writeFileSync(join(dir, "cgroup.procs"), String(pid));
        rmdirSync(leaf);
      } catch {
        // The move itself failed: nothing to undo.
      }
    }
    return { reason: `cgroup v2: could not enable ${wanted.join(" and ")} in ${dir} (${message(error)})` };
  }
  return layout(wanted.includes("pids"));
}

/** The engine's own directory in the v1 hierarchy of `controller`, when mounted and writable by it. */
function v1Directory(facts: CgroupFacts, mounts: MountEntry[], controller: string): string | undefined {
  const mount = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes(controller));
  const membership = parseProcCgroup(facts.selfCgroup).find((m) => m.controllers.includes(controller));
  if (!mount || !membership) return undefined;
  const dir = directoryIn(mount, membership.path);
  return dir !== undefined && writable(dir) ? dir : undefined;
}

/** The mount holding `dir` (the longest mount point above it). */
function mountOf(mounts: MountEntry[], dir: string): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const mount of mounts) {
    const under = dir === mount.mountPoint || dir.startsWith(`${mount.mountPoint.replace(/\/$/, "")}/`);
    if (under && mount.mountPoint.length >= (best?.mountPoint.length ?? -1)) best = mount;
  }
  return best;
}

/**
 * Where the runs' cgroups go.
 *
 * With `explicit` (the `--cgroup` directory): there, whether cgroup v2 (its subtree must enable memory, which the
 * engine does when it may) or the v1 memory hierarchy (with v1's pids hierarchy where the engine may write).
 *
 * Otherwise, found from the engine's own cgroup: with cgroup v2, when its cgroup's parent enables the memory
 * controller and the cgroup is delegated to the engine (see {@link prepareV2Parent}); with v1, the engine's
 * own cgroup of the memory hierarchy when it may write there (root, as a rule). Runs' cgroups are made below the
 * engine's own cgroup, never beside it: the engine stays within what it was given.
 */
export function findCgroupLayout(facts: CgroupFacts, explicit?: string): CgroupSearch {
  const mounts = parseMountInfo(facts.mountinfo);
  if (explicit !== undefined) {
    if (!isAbsolute(explicit)) return { reason: `--cgroup ${explicit} is not an absolute path` };
    const mount = mountOf(mounts, explicit);
    if (mount?.fsType === "cgroup2") return prepareV2Parent(explicit, facts.pid);
    if (mount?.fsType === "cgroup" && mount.superOptions.includes("memory")) {
      if (!writable(explicit)) return { reason: `cgroup v1: ${explicit} is not writable by this engine` };
      return {
        layout: { version: 1, memoryParent: explicit, pidsParent: v1Directory(facts, mounts, "pids") },
      };
    }
    return { reason: `${explicit} is not in a cgroup v2 hierarchy nor in cgroup v1's memory hierarchy` };
  }
  const reasons: string[] = [];
  const unified = mounts.find((m) => m.fsType === "cgroup2");
  const v2Path = parseProcCgroup(facts.selfCgroup).find((m) => m.controllers.length === 0)?.path;
  if (unified && v2Path !== undefined) {
    const dir = directoryIn(unified, v2Path);
    if (dir !== undefined && words(join(unified.mountPoint, "cgroup.controllers")).includes("memory")) {
      const found = prepareV2Parent(dir, facts.pid);
      if ("layout" in found) return found;
      reasons.push(found.reason);
    } else {
      reasons.push("cgroup v2: the memory controller is not in the unified hierarchy");
    }
  }
  const memory = v1Directory(facts, mounts, "memory");
  if (memory !== undefined) {
    return { layout: { version: 1, memoryParent: memory, pidsParent: v1Directory(facts, mounts, "pids") } };
  }
  reasons.push(
    mounts.some((m) => m.fsType === "cgroup" && m.superOptions.includes("memory"))
      ? "cgroup v1: the engine's memory cgroup is not writable by it"
      : "no cgroup v1 memory hierarchy",
  );
  return { reason: reasons.join("; ") };
}
