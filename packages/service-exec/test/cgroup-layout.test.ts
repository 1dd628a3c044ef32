import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, isTrestleError } from "@trestle/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CgroupFacts,
  chooseMemoryBound,
  createRunCgroups,
  findCgroupLayout,
  parseMountInfo,
  parseProcCgroup,
} from "../src/index.js";

/**
 * Where the runs' cgroups go, decided from /proc/self/mountinfo and /proc/self/cgroup. The hierarchies here are
 * plain directories standing in for cgroupfs (a real v1 hierarchy is exercised by memory-bound.test.ts); what
 * they show is which directory the engine picks and what it writes there.
 */

const PID = 4242;
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "trestle-cgroup-layout-"));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A fake cgroup directory with the given files. */
function cgroupDir(path: string, files: Record<string, string> = {}): string {
  mkdirSync(path, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text);
  return path;
}

function mountLine(id: number, mountRoot: string, mountPoint: string, fsType: string, options: string) {
  return `${id} 25 0:${id} ${mountRoot} ${mountPoint} rw,nosuid,nodev,noexec,relatime shared:${id} - ${fsType} ${fsType === "cgroup2" ? "cgroup2" : "cgroup"} ${options}`;
}

describe("parsing /proc", () => {
  it("reads mountinfo, escapes and optional fields included", () => {
    const text = [
      "36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
      "30 25 0:26 / /sys/fs/cgroup/memory rw,nosuid shared:8 - cgroup cgroup rw,memory",
      "garbage",
    ].join("\n");
    expect(parseMountInfo(text)).toEqual([
      { root: "/mnt1", mountPoint: "/mnt two", fsType: "ext3", superOptions: ["rw", "errors=continue"] },
      { root: "/", mountPoint: "/sys/fs/cgroup/memory", fsType: "cgroup", superOptions: ["rw", "memory"] },
    ]);
  });

  it("reads /proc/self/cgroup of a hybrid host", () => {
    expect(parseProcCgroup("9:name=systemd:/\n4:memory:/a/b\n1:cpu,cpuacct:/\n0::/\n")).toEqual([
      { controllers: ["name=systemd"], path: "/" },
      { controllers: ["memory"], path: "/a/b" },
      { controllers: ["cpu", "cpuacct"], path: "/" },
      { controllers: [], path: "/" },
    ]);
  });
});

describe("cgroup v1", () => {
  function v1Facts(memoryRoot = "/"): CgroupFacts {
    return {
      mountinfo: [
        mountLine(30, memoryRoot, join(root, "memory"), "cgroup", "rw,memory"),
        mountLine(31, "/", join(root, "pids"), "cgroup", "rw,pids"),
        mountLine(32, "/", join(root, "unified"), "cgroup2", "rw"),
      ].join("\n"),
      selfCgroup: "8:pids:/\n4:memory:/engine/here\n0::/\n",
      pid: PID,
    };
  }

  it("puts runs below the engine's own memory cgroup, and pids groups in the pids hierarchy", () => {
    cgroupDir(join(root, "unified"), { "cgroup.controllers": "hugetlb" });
    const memory = cgroupDir(join(root, "memory", "engine", "here"));
    const pids = cgroupDir(join(root, "pids"));
    expect(findCgroupLayout(v1Facts())).toEqual({
      layout: { version: 1, memoryParent: memory, pidsParent: pids },
    });
  });

  it("maps the engine's cgroup through a mount of part of the hierarchy (a container's view)", () => {
    const memory = cgroupDir(join(root, "memory", "here"));
    cgroupDir(join(root, "pids"));
    const found = findCgroupLayout(v1Facts("/engine"));
    expect(found).toMatchObject({ layout: { version: 1, memoryParent: memory } });
  });

  it("says why when there is no memory hierarchy and no v2 memory controller", () => {
    cgroupDir(join(root, "unified"), { "cgroup.controllers": "cpu io" });
    const found = findCgroupLayout({
      mountinfo: mountLine(32, "/", join(root, "unified"), "cgroup2", "rw"),
      selfCgroup: "0::/engine\n",
      pid: PID,
    });
    expect(found).toEqual({
      reason:
        "cgroup v2: the memory controller is not in the unified hierarchy; no cgroup v1 memory hierarchy",
    });
  });
});

describe("cgroup v2", () => {
  function v2Facts(): CgroupFacts {
    return {
      mountinfo: mountLine(40, "/", root, "cgroup2", "rw,nsdelegate"),
      selfCgroup: "0::/system.slice/trestle-exec.service\n",
      pid: PID,
    };
  }
  const service = () => join(root, "system.slice", "trestle-exec.service");

  beforeEach(() => {
    cgroupDir(root, { "cgroup.controllers": "cpu io memory pids" });
  });

  it("uses the engine's cgroup as it is when its subtree already enables memory and pids", () => {
    cgroupDir(service(), { "cgroup.controllers": "memory pids", "cgroup.subtree_control": "memory pids" });
    expect(findCgroupLayout(v2Facts())).toEqual({
      layout: { version: 2, memoryParent: service(), pidsParent: service() },
    });
  });

  it("in a delegated cgroup of its own, moves itself into a leaf and enables memory and pids for the runs", () => {
    cgroupDir(service(), {
      "cgroup.controllers": "cpu memory pids",
      "cgroup.subtree_control": "",
      "cgroup.procs": `${PID}\n`,
    });
    expect(findCgroupLayout(v2Facts())).toEqual({
      layout: { version: 2, memoryParent: service(), pidsParent: service() },
    });
    expect(readFileSync(join(service(), "trestle-exec-engine", "cgroup.procs"), "utf8")).toBe(String(PID));
    expect(readFileSync(join(service(), "cgroup.subtree_control"), "utf8")).toBe("+memory +pids");
  });

  it("leaves a cgroup it shares with other processes alone, and says why", () => {
    cgroupDir(service(), {
      "cgroup.controllers": "memory pids",
      "cgroup.subtree_control": "",
      "cgroup.procs": `1001\n${PID}\n`,
    });
    const found = findCgroupLayout(v2Facts());
    expect(found).toMatchObject({ reason: expect.stringContaining("1 other process(es)") });
    expect(existsSync(join(service(), "trestle-exec-engine"))).toBe(false);
    expect(readFileSync(join(service(), "cgroup.subtree_control"), "utf8")).toBe("");
  });

  it("says why when its parent does not give it the memory controller", () => {
    cgroupDir(service(), { "cgroup.controllers": "cpu pids", "cgroup.subtree_control": "" });
    expect(findCgroupLayout(v2Facts())).toMatchObject({
      reason: expect.stringContaining("has no memory controller"),
    });
  });

  it("takes an explicit directory, enabling memory there (a systemd DelegateSubgroup= layout)", () => {
    const runs = cgroupDir(join(root, "runs"), {
      "cgroup.controllers": "memory",
      "cgroup.subtree_control": "",
      "cgroup.procs": "",
    });
    expect(findCgroupLayout(v2Facts(), runs)).toEqual({
      layout: { version: 2, memoryParent: runs, pidsParent: undefined },
    });
    expect(readFileSync(join(runs, "cgroup.subtree_control"), "utf8")).toBe("+memory");
  });
});

describe("leftovers", () => {
  it("removes the empty run cgroups of engines that are gone, and nothing else", () => {
    // Above the kernel's largest pid_max: no process has it.
    const gone = 4_194_305;
    const names = [
      `trestle-exec-${gone}-3`,
      `trestle-exec-${process.pid}-1`,
      "trestle-exec-1-1",
      "trestle-exec-engine",
      "other",
    ];
    for (const name of names) cgroupDir(join(root, name));
    const cgroups = createRunCgroups(
      { version: 2, memoryParent: root, pidsParent: root },
      { memoryBytes: 1 << 26, maxPids: 10 },
    );
    expect(cgroups.removeLeftovers()).toEqual([join(root, `trestle-exec-${gone}-3`)]);
    expect(readdirSync(root).sort()).toEqual(names.slice(1).sort());
  });
});

describe("choosing the bound", () => {
  const facts: CgroupFacts = { mountinfo: "", selfCgroup: "", pid: PID };

  it("falls back to address-space limits, saying why, when no cgroup can be made", () => {
    expect(chooseMemoryBound({ memoryLimitMb: 64, maxProcesses: 8, sandboxed: true, facts }).bound).toEqual({
      mode: "address-space",
      limitMb: 64,
      reason: "no cgroup v1 memory hierarchy",
    });
    expect(
      chooseMemoryBound({ memoryLimitMb: 64, maxProcesses: 8, sandboxed: true, cgroup: false }).bound,
    ).toMatchObject({ mode: "address-space", reason: "cgroups turned off (--no-cgroup)" });
    expect(chooseMemoryBound({ memoryLimitMb: 64, maxProcesses: 8, sandboxed: false }).bound).toMatchObject({
      mode: "address-space",
    });
  });

  it("refuses to start with an explicit directory it cannot use", () => {
    let error: unknown;
    try {
      chooseMemoryBound({ memoryLimitMb: 64, maxProcesses: 8, sandboxed: true, cgroup: root, facts });
    } catch (e) {
      error = e;
    }
    expect(isTrestleError(error, Code.FailedPrecondition)).toBe(true);
    expect((error as Error).message).toContain("is not in a cgroup v2 hierarchy");
  });
});
