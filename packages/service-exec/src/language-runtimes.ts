import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname } from "node:path";

/** The languages the engine knows. */
export type LanguageName = "javascript" | "python" | "bash";

/** The command that runs one program, before the engine adds its process-group handling. */
export interface RunCommand {
  file: string;
  args: string[];
}

/** Limits that a runtime turns into interpreter flags or shell limits. */
export interface RuntimeLimits {
  /** Memory cap in MiB. */
  memoryLimitMb: number;
}

/** How to run a program in one language. */
export interface LanguageRuntime {
  name: LanguageName;
  /** The name the program is written to in the work directory. */
  fileName: string;
  /** The command running `codeFile` in `workDir` with the program's own arguments. */
  command(workDir: string, codeFile: string, args: readonly string[], limits: RuntimeLimits): RunCommand;
  /** A command that succeeds when the interpreter can start: run once in the sandbox at start. */
  probeCommand: RunCommand;
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

/**
 * A shell that sets the address-space limit, then replaces itself with the interpreter. It drops the PWD the
 * shell exports, so the program's environment stays exactly the one the engine gives.
 */
function underMemoryLimit(limits: RuntimeLimits, command: RunCommand): RunCommand {
  const kib = limits.memoryLimitMb * 1024;
  return {
    file: "/bin/sh",
    args: ["-c", `ulimit -v ${kib} && unset PWD && exec "$@"`, "trestle-exec", command.file, ...command.args],
  };
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

function permissionFlag(): string {
  // Node 22 renamed the flag; take whichever this Node knows.
  return process.allowedNodeEnvironmentFlags.has("--permission")
    ? "--permission"
    : "--experimental-permission";
}

/**
 * JavaScript on Node with the permission model: file reads and writes only inside the work directory, no
 * child processes, no worker threads, no native addons; the V8 heap capped with `--max-old-space-size`
 * (an address-space limit would break V8, which reserves large virtual ranges).
 */
export function javascriptRuntime(nodePath: string = process.execPath): LanguageRuntime {
  return {
    name: "javascript",
    fileName: "main.js",
    probeCommand: { file: nodePath, args: ["-e", "0"] },
    readOnlyPaths: installPrefix(nodePath),
    command(workDir, codeFile, args, limits) {
      const flags = [
        permissionFlag(),
        `--allow-fs-read=${workDir}`,
        `--allow-fs-write=${workDir}`,
        `--max-old-space-size=${limits.memoryLimitMb}`,
        BLOCKING_OUTPUT,
      ];
      if (process.allowedNodeEnvironmentFlags.has("--disable-warning")) {
        flags.push("--disable-warning=ExperimentalWarning");
      }
      return { file: nodePath, args: [...flags, codeFile, ...args] };
    },
  };
}

/** Python 3 in isolated mode (`-I`: no user site, no PYTHON* variables, no script directory on the path), unbuffered (`-u`) so output streams as printed, under `ulimit -v`. */
export function pythonRuntime(pythonPath: string): LanguageRuntime {
  return {
    name: "python",
    fileName: "main.py",
    probeCommand: { file: pythonPath, args: ["-I", "-c", "import encodings"] },
    readOnlyPaths: pythonPrefixes(pythonPath),
    command(_workDir, codeFile, args, limits) {
      return underMemoryLimit(limits, { file: pythonPath, args: ["-I", "-u", codeFile, ...args] });
    },
  };
}

/** Bash without profile or rc files, under `ulimit -v`. It can run any program on PATH: off by default. */
export function bashRuntime(bashPath = "bash"): LanguageRuntime {
  return {
    name: "bash",
    fileName: "main.sh",
    probeCommand: { file: bashPath, args: ["--noprofile", "--norc", "-c", "true"] },
    readOnlyPaths: [],
    command(_workDir, codeFile, args, limits) {
      return underMemoryLimit(limits, { file: bashPath, args: ["--noprofile", "--norc", codeFile, ...args] });
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
