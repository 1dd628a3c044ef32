import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { JAVASCRIPT_PRELUDE_FILE, PYTHON_PRELUDE_FILE } from "@trestle/code-mode";

/** The languages the engine knows. */
export type LanguageName = "javascript" | "python" | "bash";

/** The command that runs one program, before the engine adds its process-group handling. */
export interface RunCommand {
  file: string;
  args: string[];
}

/**
 * What bounds a run's memory as a whole: a cgroup of its own (everything the run holds counts), or only
 * per-process address-space limits (RLIMIT_AS) and the sandbox's sized tmpfs mounts.
 */
export type MemoryBoundMode = "cgroup" | "address-space";

/** Limits that a runtime turns into interpreter flags or process limits. */
export interface RuntimeLimits {
  /** Memory cap in MiB. */
  memoryLimitMb: number;
  /** What bounds the run's memory besides the interpreter's own limits. */
  memoryBound: MemoryBoundMode;
}

/**
 * Address space Node reserves beyond what a program uses, in MiB, when it cannot be measured (see
 * {@link measureNodeReservedAddressSpaceMb}): the most measured, on Node 24, plus a margin.
 */
export const NODE_RESERVED_ADDRESS_SPACE_MB = 1536;

/**
 * Run by {@link measureNodeReservedAddressSpaceMb}: churns the heap (so V8's collector threads and their malloc
 * arenas exist), holds 64 MiB of Buffers, then prints the peak address space less those 64 MiB.
 */
const MEASURE_RESERVED = `
let keep = [];
for (let i = 0; i < 200; i++) { keep.push(new Array(1e4).fill(i)); if (keep.length > 20) keep = []; }
const held = [];
for (let i = 0; i < 4; i++) held.push(Buffer.alloc(16 << 20, 1));
setTimeout(() => {
  const peak = /VmPeak:\\s+(\\d+) kB/.exec(require("node:fs").readFileSync("/proc/self/status", "utf8"));
  process.stdout.write(String(Math.round(Number(peak[1]) / 1024) - 64));
}, 20);
`;

/**
 * The address space a Node process holds beyond what its program allocates, in MiB, measured by running
 * `nodePath` once: V8's reservations at start (about 710 MiB on Node 20 and 22, 1.3 GiB on Node 24), thread
 * stacks and malloc arenas. Measured this way: 987 MiB on Node 20.20, 1,007–1,071 on 22.23, 1,376 on 24.22;
 * Buffers under RLIMIT_AS = limit + that stopped within about 64 MiB of the limit. `undefined` when it cannot
 * be measured (no /proc).
 */
export function measureNodeReservedAddressSpaceMb(nodePath: string): number | undefined {
  const flags = ["--max-old-space-size=48"];
  if (process.allowedNodeEnvironmentFlags.has("--disable-wasm-trap-handler")) {
    flags.push("--disable-wasm-trap-handler");
  }
  const result = spawnSync(nodePath, [...flags, "-e", MEASURE_RESERVED], {
    encoding: "utf8",
    env: {},
    timeout: 15_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const mb = Number(result.stdout);
  return result.status === 0 && Number.isInteger(mb) && mb > 0 ? mb : undefined;
}

/** How to run a program in one language. */
export interface LanguageRuntime {
  name: LanguageName;
  /** The name the program is written to in the work directory. */
  fileName: string;
  /**
   * The command running `codeFile` in `workDir` with the program's own arguments; with `preludeFile` (code mode's
   * prelude for this language, in the work directory), the prelude is loaded first and gives the program `tools`.
   */
  command(
    workDir: string,
    codeFile: string,
    args: readonly string[],
    limits: RuntimeLimits,
    preludeFile?: string,
  ): RunCommand;
  /** The file name of code mode's prelude for this language; none for a language without one. */
  preludeFileName?: string;
  /** A command that succeeds when the interpreter can start: run once in the sandbox at start. */
  probeCommand: RunCommand;
  /** RLIMIT_AS for the program under `limits`, in bytes; `undefined` for none. */
  addressSpaceBytes(limits: RuntimeLimits): number | undefined;
  /**
   * Directories outside /usr the interpreter needs, which the sandbox binds read-only (a Node or Python
   * installed under /opt or a home directory).
   */
  readOnlyPaths: readonly string[];
}

/** The installation prefix of an executable (`/opt/node` for `/opt/node/bin/node`), following links. */
function installPrefix(executable: string): string[] {
  try {
    return [dirname(dirname(realpathSync(executable)))];
  } catch {
    return [];
  }
}

const MIB = 1024 * 1024;

/**
 * A shell that sets the address-space limit, then replaces itself with the program: for runs without the
 * sandbox (whose own prlimit sets it otherwise). It drops the PWD the shell exports, so the program's
 * environment stays exactly the one the engine gives.
 */
export function underAddressSpaceLimit(bytes: number, command: RunCommand): RunCommand {
  const kib = Math.floor(bytes / 1024);
  return {
    file: "/bin/sh",
    args: ["-c", `ulimit -v ${kib} && unset PWD && exec "$@"`, "trestle-exec", command.file, ...command.args],
  };
}

/**
 * V8's old-space limit under a run's memory limit: the limit less a headroom of an eighth (at least 16 MiB) for
 * what Node holds outside its heap, so a program that outgrows its heap gets V8's "heap out of memory" rather
 * than the kernel's kill. Measured in a cgroup: a heap of 48 MiB peaked at 56 MiB in all, 64 MiB at 79.
 */
export function javascriptHeapLimitMb(memoryLimitMb: number): number {
  return Math.max(8, memoryLimitMb - Math.max(16, Math.floor(memoryLimitMb / 8)));
}

/**
 * Loaded before the program: its stdout and stderr block when the pipe is full. Node 24 otherwise queues a busy
 * loop's writes inside the program once a write is partial, so they never reach the engine and the output cap
 * never trips: the program grows to the memory limit instead. Blocking writes let the engine read up to its cap
 * and stop the program, on every Node version.
 */
const BLOCKING_OUTPUT = `--import=data:text/javascript,${encodeURIComponent(
  "for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);",
)}`;

/**
 * Loaded before the program, which runs as an ES module (`main.mjs`, so that `await` works at its top level on
 * every supported Node): gives it CommonJS's `require`, `__filename` and `__dirname` as globals, so a program
 * written for CommonJS that uses them runs too. `require` resolves from the program's own file.
 */
const COMMONJS_GLOBALS = `--import=data:text/javascript,${encodeURIComponent(
  [
    'import { createRequire } from "node:module";',
    'import { dirname } from "node:path";',
    "const main = process.argv[1];",
    "Object.assign(globalThis, { require: createRequire(main), __filename: main, __dirname: dirname(main) });",
  ].join(""),
)}`;

function permissionFlag(): string {
  // Node 22 renamed the flag; take whichever this Node knows.
  return process.allowedNodeEnvironmentFlags.has("--permission")
    ? "--permission"
    : "--experimental-permission";
}

/**
 * JavaScript on Node with the permission model: file reads and writes only inside the work directory, no
 * child processes, no worker threads, no native addons; the V8 heap capped with `--max-old-space-size` (see
 * {@link javascriptHeapLimitMb}). Under a cgroup, that cgroup bounds the rest (Buffers, wasm memory). Without
 * one, RLIMIT_AS is the memory limit plus what this Node reserves without using it (measured once, see
 * {@link measureNodeReservedAddressSpaceMb}), and WebAssembly uses inline bounds checks
 * (`--disable-wasm-trap-handler`): its guard regions would reserve 10 GiB per memory.
 */
export function javascriptRuntime(nodePath: string = process.execPath): LanguageRuntime {
  let reservedMb: number | undefined;
  return {
    name: "javascript",
    // An ES module: top-level await (`await tools.x(...)`) works; see COMMONJS_GLOBALS for CommonJS programs.
    fileName: "main.mjs",
    probeCommand: { file: nodePath, args: ["-e", "0"] },
    readOnlyPaths: installPrefix(nodePath),
    addressSpaceBytes(limits) {
      if (limits.memoryBound === "cgroup") return undefined;
      reservedMb ??= measureNodeReservedAddressSpaceMb(nodePath) ?? NODE_RESERVED_ADDRESS_SPACE_MB;
      return (limits.memoryLimitMb + reservedMb) * MIB;
    },
    preludeFileName: JAVASCRIPT_PRELUDE_FILE,
    command(workDir, codeFile, args, limits, preludeFile) {
      const flags = [
        permissionFlag(),
        `--allow-fs-read=${workDir}`,
        `--allow-fs-write=${workDir}`,
        `--max-old-space-size=${javascriptHeapLimitMb(limits.memoryLimitMb)}`,
        BLOCKING_OUTPUT,
        COMMONJS_GLOBALS,
      ];
      if (
        limits.memoryBound === "address-space" &&
        process.allowedNodeEnvironmentFlags.has("--disable-wasm-trap-handler")
      ) {
        flags.push("--disable-wasm-trap-handler");
      }
      if (process.allowedNodeEnvironmentFlags.has("--disable-warning")) {
        flags.push("--disable-warning=ExperimentalWarning");
      }
      if (preludeFile !== undefined) flags.push(`--import=${pathToFileURL(preludeFile).href}`);
      return { file: nodePath, args: [...flags, codeFile, ...args] };
    },
  };
}

/** RLIMIT_AS of the memory limit itself: Python raises MemoryError at it, whatever else bounds the run. */
function wholeLimit(limits: RuntimeLimits): number {
  return limits.memoryLimitMb * MIB;
}

/**
 * Python 3 in isolated mode (`-I`: no user site, no PYTHON* variables, no script directory on the path),
 * unbuffered (`-u`) so output streams as printed, with RLIMIT_AS at the memory limit.
 */
export function pythonRuntime(pythonPath: string): LanguageRuntime {
  return {
    name: "python",
    fileName: "main.py",
    probeCommand: { file: pythonPath, args: ["-I", "-c", "import encodings"] },
    readOnlyPaths: pythonPrefixes(pythonPath),
    addressSpaceBytes: wholeLimit,
    preludeFileName: PYTHON_PRELUDE_FILE,
    command(_workDir, codeFile, args, _limits, preludeFile) {
      // The prelude runs the program as __main__ with the program's own argv (see @trestle/code-mode).
      const prelude = preludeFile === undefined ? [] : [preludeFile];
      return { file: pythonPath, args: ["-I", "-u", ...prelude, codeFile, ...args] };
    },
  };
}

/** Bash without profile or rc files, RLIMIT_AS at the memory limit. It can run any program on PATH: off by default. */
export function bashRuntime(bashPath = "bash"): LanguageRuntime {
  return {
    name: "bash",
    fileName: "main.sh",
    probeCommand: { file: bashPath, args: ["--noprofile", "--norc", "-c", "true"] },
    readOnlyPaths: [],
    addressSpaceBytes: wholeLimit,
    command(_workDir, codeFile, args) {
      return { file: bashPath, args: ["--noprofile", "--norc", codeFile, ...args] };
    },
  };
}

/**
 * The real executable behind a Python command (`python3` may be a wrapper such as a pyenv shim that needs
 * variables the scrubbed environment drops), or `undefined` when there is none.
 */
export function findPython(command = "python3"): string | undefined {
  const result = spawnSync(command, ["-c", "import sys; print(sys.executable)"], {
    encoding: "utf8",
    timeout: 10_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const path = result.status === 0 ? result.stdout.trim() : "";
  return path === "" ? undefined : path;
}

/** Where a Python keeps its standard library (`sys.prefix`, `sys.base_prefix`), for the sandbox to bind. */
function pythonPrefixes(pythonPath: string): string[] {
  const result = spawnSync(
    pythonPath,
    ["-I", "-c", "import sys; print(sys.prefix); print(sys.base_prefix)"],
    {
      encoding: "utf8",
      timeout: 10_000,
      env: {},
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  const prefixes = result.status === 0 ? result.stdout.split("\n").filter((line) => line !== "") : [];
  return [...new Set([...prefixes, ...installPrefix(pythonPath)])];
}
