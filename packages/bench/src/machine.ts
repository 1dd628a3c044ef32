import { execFileSync } from "node:child_process";
import { cpus, loadavg, release, totalmem } from "node:os";

/** The machine a run measured on. */
export interface MachineDescription {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  node: string;
  kernel: string;
  /** 1, 5 and 15 minute load averages when the run started. */
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
}

/** The code a run measured. */
export interface GitState {
  commit: string;
  /** Files with uncommitted changes in the work tree (the build measured includes them). */
  uncommittedFiles: string[];
}

/** Describes this machine. */
export function describeMachine(): MachineDescription {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memoryBytes: totalmem(),
    node: process.version,
    kernel: release(),
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** The commit checked out at `repoRoot`, and what differs from it. */
export function describeGitState(repoRoot: string): GitState {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" });
  try {
    return {
      commit: git("rev-parse", "HEAD").trim(),
      uncommittedFiles: git("status", "--porcelain", "--untracked-files=no")
        .split("\n")
        .filter(Boolean)
        .map((line) => line.slice(3)),
    };
  } catch {
    return { commit: "unknown (not a git work tree)", uncommittedFiles: [] };
  }
}
