import { describe, expect, it } from "vitest";
import {
  createSandbox,
  javascriptHeapLimitMb,
  javascriptRuntime,
  parseExecCommandLine,
  pythonRuntime,
  type SandboxRun,
  sandboxTmpfsSizes,
} from "../src/index.js";

/** The bwrap command a run gets: what is writable, how large, and what holds the program back. */

const MIB = 1024 * 1024;
const WORK_DIR = "/tmp/trestle-exec-unit";
const CODE_FILE = `${WORK_DIR}/main.py`;
const sandbox = createSandbox({ memoryLimitMb: 64, maxProcesses: 32 });

function argsOf(run: Partial<SandboxRun> = {}): string[] {
  return sandbox.wrap(
    { file: "/usr/bin/python3", args: ["-I", "-u", CODE_FILE] },
    { workDir: WORK_DIR, codeFiles: [CODE_FILE], env: { PATH: "/usr/bin" }, readOnlyPaths: [], ...run },
  ).command.args;
}

/** True when `sequence` appears in `args` in one piece. */
function containsSequence(args: string[], sequence: string[]): boolean {
  return args.some((_, i) => sequence.every((part, j) => args[i + j] === part));
}

describe("the sandbox's writable places", () => {
  it("are two sized tmpfs mounts whose sizes add up to less than the memory limit", () => {
    const sizes = sandboxTmpfsSizes(64);
    expect(sizes).toEqual({ workDirBytes: 32 * MIB, shmBytes: 16 * MIB });
    expect(sizes.workDirBytes + sizes.shmBytes).toBeLessThanOrEqual(64 * MIB);
  });

  it("give /dev/shm a sized tmpfs and make the rest of /dev read-only", () => {
    const args = argsOf();
    expect(containsSequence(args, ["--dev", "/dev", "--size", String(16 * MIB), "--tmpfs", "/dev/shm"])).toBe(
      true,
    );
    expect(containsSequence(args, ["--tmpfs", "/dev/shm", "--remount-ro", "/dev"])).toBe(true);
  });

  it("make the work directory a sized tmpfs of the sandbox's own, with the code bound read-only into it", () => {
    const args = argsOf();
    const tmpfs = ["--size", String(32 * MIB), "--perms", "0700", "--tmpfs", WORK_DIR];
    expect(containsSequence(args, tmpfs)).toBe(true);
    expect(containsSequence(args, ["--ro-bind", CODE_FILE, CODE_FILE])).toBe(true);
    // The code is bound after the tmpfs is mounted, or the tmpfs would hide it.
    expect(args.indexOf(CODE_FILE)).toBeGreaterThan(args.indexOf(WORK_DIR));
    // No host directory is bound writable: nothing a program writes reaches the host's disk.
    expect(args).not.toContain("--bind");
  });
});

describe("the held start", () => {
  it("asks bwrap to report its sandbox's pid on fd 3 and wait on fd 4 before the program starts", () => {
    const wrapped = sandbox.wrap(
      { file: "/bin/true", args: [] },
      { workDir: WORK_DIR, codeFiles: [], env: {}, readOnlyPaths: [], held: true },
    );
    expect(containsSequence(wrapped.command.args, ["--info-fd", "3", "--block-fd", "4"])).toBe(true);
    expect(wrapped.held).toEqual({ infoFd: 3, blockFd: 4 });
    // Options of bwrap's own, before the command.
    expect(wrapped.command.args.indexOf("--info-fd")).toBeLessThan(wrapped.command.args.indexOf("--"));
  });

  it("is not asked for otherwise", () => {
    const wrapped = sandbox.wrap(
      { file: "/bin/true", args: [] },
      { workDir: WORK_DIR, codeFiles: [], env: {}, readOnlyPaths: [] },
    );
    expect(wrapped.command.args).not.toContain("--block-fd");
    expect(wrapped).not.toHaveProperty("held");
  });
});

describe("process limits inside the sandbox", () => {
  it("set RLIMIT_AS with the process limit when the run has one", () => {
    const args = argsOf({ addressSpaceBytes: 64 * MIB });
    expect(
      containsSequence(args, ["/usr/bin/prlimit", "--nproc=32:32", `--as=${64 * MIB}:${64 * MIB}`, "--"]),
    ).toBe(true);
  });

  it("set no RLIMIT_AS when the run has none", () => {
    expect(argsOf().some((arg) => arg.startsWith("--as="))).toBe(false);
  });
});

describe("the runtimes' memory settings", () => {
  it("leave V8 headroom under the limit for what Node holds outside its heap", () => {
    expect(javascriptHeapLimitMb(16)).toBe(8);
    expect(javascriptHeapLimitMb(64)).toBe(48);
    expect(javascriptHeapLimitMb(512)).toBe(448);
  });

  it("JavaScript under a cgroup: heap flag, no address-space limit, WebAssembly as usual", () => {
    const runtime = javascriptRuntime();
    const limits = { memoryLimitMb: 64, memoryBound: "cgroup" as const };
    const command = runtime.command(WORK_DIR, `${WORK_DIR}/main.js`, [], limits);
    expect(command.args).toContain("--max-old-space-size=48");
    expect(command.args).not.toContain("--disable-wasm-trap-handler");
    expect(runtime.addressSpaceBytes(limits)).toBeUndefined();
  });

  it("JavaScript without one: an address-space limit above the limit by what Node reserves, and bounds-checked WebAssembly", () => {
    const runtime = javascriptRuntime();
    const limits = { memoryLimitMb: 64, memoryBound: "address-space" as const };
    const command = runtime.command(WORK_DIR, `${WORK_DIR}/main.js`, [], limits);
    expect(command.args).toContain("--disable-wasm-trap-handler");
    const bytes = runtime.addressSpaceBytes(limits) ?? 0;
    // Node reserves several hundred MiB it never uses (V8's reservations, stacks, arenas): measured, not guessed.
    expect(bytes).toBeGreaterThan((64 + 500) * MIB);
    expect(bytes).toBeLessThan((64 + 2048) * MIB);
  });

  it("Python: the interpreter itself (no shell in between), RLIMIT_AS at the limit whatever else bounds the run", () => {
    const runtime = pythonRuntime("/usr/bin/python3");
    for (const memoryBound of ["cgroup", "address-space"] as const) {
      const limits = { memoryLimitMb: 64, memoryBound };
      expect(runtime.command(WORK_DIR, CODE_FILE, ["a"], limits)).toEqual({
        file: "/usr/bin/python3",
        args: ["-I", "-u", CODE_FILE, "a"],
      });
      expect(runtime.addressSpaceBytes(limits)).toBe(64 * MIB);
    }
  });
});

describe("the command line", () => {
  it("reads --cgroup DIR and --no-cgroup", () => {
    expect(parseExecCommandLine([], {})).not.toHaveProperty("cgroup");
    expect(parseExecCommandLine(["--cgroup", "/sys/fs/cgroup/trestle"], {})).toMatchObject({
      cgroup: "/sys/fs/cgroup/trestle",
    });
    expect(parseExecCommandLine(["--no-cgroup"], {})).toMatchObject({ cgroup: false });
  });
});
