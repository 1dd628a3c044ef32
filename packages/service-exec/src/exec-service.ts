import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { javascriptPrelude, pythonPrelude, serveToolChannel, type ToolChannel } from "@trestle/code-mode";
import { Code, TrestleError } from "@trestle/core";
import { type CodeExecutionRequest, ExecutionStatus, OutputType, RuntimeStatus } from "@trestle/proto";
import type { CapabilityHandlers, CodeExecutionReplyInit } from "@trestle/wanaku";
import {
  bashRuntime,
  findPython,
  javascriptRuntime,
  type LanguageName,
  type LanguageRuntime,
  pythonRuntime,
  type RunCommand,
  type RuntimeLimits,
  underAddressSpaceLimit,
} from "./language-runtimes.js";
import { chooseMemoryBound, describeMemoryBound, type MemoryBound } from "./memory-bound.js";
import { type HeldStart, type ProcessRun, type RunOutcome, startProcessRun } from "./process-run.js";
import type { RunCgroup } from "./run-cgroups.js";
import { runEnvironment } from "./run-environment.js";
import {
  createSandbox,
  DEFAULT_BWRAP_PATH,
  DEFAULT_MAX_PROCESSES,
  DEFAULT_MEMORY_LIMIT_MB,
  PROGRAM_CHANNEL_FD,
  SANDBOX_CHANNEL_FD,
  SANDBOX_PATH,
  type Sandbox,
} from "./sandbox.js";
import { scriptArguments } from "./script-arguments.js";
import { callRunTool, fetchRunTools, type RunTool, type ToolAccess, toolAccessFrom } from "./tool-access.js";

/** Options for {@link createExecService}. */
export interface ExecServiceOptions {
  /** The engine type routers resolve it by (`code-execution-engine://<engine>/<language>`). Default `trestle`. */
  engineName?: string;
  /** Offer JavaScript. Default true. */
  enableJavascript?: boolean;
  /**
   * Python: a `python3` command (or path) to look up, or `false` for none. Default `"python3"`: offered when
   * found on PATH.
   */
  python?: string | false;
  /** Offer Bash, which can run any program on PATH. Default false. */
  enableBash?: boolean;
  /** Node binary for JavaScript. Default: the one running the service. */
  nodePath?: string;
  /** Timeout when the request names none. Default 30,000 ms. */
  defaultTimeoutMs?: number;
  /** Longest timeout a request may ask for; longer ones are cut to it. Default 300,000 ms. */
  maxTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when a run is stopped. Default 1,000 ms. */
  killGraceMs?: number;
  /** Total stdout + stderr bytes per run; past it the output is cut and the run stopped. Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * Memory cap per run, in MiB: the run's cgroup limit where there is one (everything the run holds), else
   * address-space limits per process; the run's tmpfs mounts are sized within it either way. Default 512.
   */
  memoryLimitMb?: number;
  /** Runs at once; more are refused with `ResourceExhausted`. With a cgroup, this times the limit bounds the host. Default 4. */
  maxConcurrentRuns?: number;
  /**
   * Where each run's cgroup is made: a cgroup v2 directory delegated to the engine (its subtree enabling memory,
   * which the engine does when it may) or a directory of cgroup v1's memory hierarchy; `false` for no cgroups
   * (address-space limits only). Default: below the engine's own cgroup where it may, else none (see the
   * README). A directory that cannot be used stops the engine from starting.
   */
  cgroup?: string | false;
  /** Where per-run work directories are created. Default: the system's temporary directory. */
  workRoot?: string;
  /** PATH given to programs. Default: the system directories (sandboxed) or the service's own PATH (unconfined). */
  path?: string;
  /** The bubblewrap binary every run goes through. Default `/usr/bin/bwrap`. */
  bwrapPath?: string;
  /** Processes and threads one run may have at once (RLIMIT_NPROC inside its sandbox). Default 256. */
  maxProcesses?: number;
  /**
   * Where the sandbox does not work, run programs as plain child processes instead of refusing to start:
   * they can then read whatever the service's user can, reach the network and loopback, and see other
   * processes. Only for development on a machine without user namespaces; the engine then warns at start and
   * on every run. Where the sandbox works it is used all the same. Default false: the engine refuses to
   * start when the sandbox does not work.
   */
  unconfined?: boolean;
  /**
   * Give programs network access. Not supported: the engine refuses to start with it, because no outbound
   * path available here can keep programs off loopback, link-local addresses and the router's own ports.
   */
  allowNetwork?: boolean;
  /** Where start-up and per-run warnings go (running unconfined, a language dropped). Default: stderr, as JSON lines. */
  onWarning?: (message: string) => void;
  /**
   * Where the start-up notice of the memory bound goes. Default: stderr, as a JSON line
   * `{"event":"memory-bound","service":"exec",…}` (a built-in's events are logged by the router).
   */
  onMemoryBound?: (bound: MemoryBound, message: string) => void;
}

/** The code execution engine's handlers, and the languages it offers (one registration each). */
export interface ExecService extends CapabilityHandlers {
  readonly engineName: string;
  readonly languages: readonly LanguageName[];
  /** What bounds each run's memory on this host. */
  readonly memoryBound: MemoryBound;
}

/** Defaults of {@link ExecServiceOptions}. */
export const EXEC_DEFAULTS = {
  engineName: "trestle",
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: 300_000,
  killGraceMs: 1_000,
  maxOutputBytes: 1024 * 1024,
  memoryLimitMb: DEFAULT_MEMORY_LIMIT_MB,
  maxConcurrentRuns: 4,
  bwrapPath: DEFAULT_BWRAP_PATH,
  maxProcesses: DEFAULT_MAX_PROCESSES,
} as const;

/** The Python a Debian system ships, tried when the one found on PATH cannot run in the sandbox. */
const SYSTEM_PYTHON = "/usr/bin/python3";

const FINAL_STATUS: Record<RunOutcome, ExecutionStatus> = {
  completed: ExecutionStatus.COMPLETED,
  failed: ExecutionStatus.FAILED,
  "output-limit": ExecutionStatus.FAILED,
  timeout: ExecutionStatus.TIMEOUT,
  cancelled: ExecutionStatus.CANCELLED,
};

function statusReply(status: ExecutionStatus): CodeExecutionReplyInit {
  return { content: [], outputType: OutputType.STATUS, status, timestamp: timestampFromMs(Date.now()) };
}

function defaultWarning(message: string): void {
  process.stderr.write(`${JSON.stringify({ level: "warn", service: "exec", msg: message })}\n`);
}

function defaultMemoryBoundNotice(bound: MemoryBound, message: string): void {
  process.stderr.write(
    `${JSON.stringify({ event: "memory-bound", service: "exec", ...bound, msg: message })}\n`,
  );
}

/**
 * The sandbox, once it passed its self-test, or `undefined` when running unconfined.
 *
 * @throws TrestleError FailedPrecondition when the sandbox does not work and the engine was not told to run
 *   unconfined; Unimplemented for `allowNetwork`.
 */
function sandboxFor(options: ExecServiceOptions, warn: (message: string) => void): Sandbox | undefined {
  if (options.allowNetwork) {
    throw new TrestleError(
      "Network access for programs (--allow-network) is not supported: this engine cannot give a sandbox a network that keeps loopback, link-local addresses and the router's ports out of reach, so it refuses to start rather than open them",
      Code.Unimplemented,
    );
  }
  const sandbox = createSandbox({
    bwrapPath: options.bwrapPath ?? EXEC_DEFAULTS.bwrapPath,
    maxProcesses: options.maxProcesses ?? EXEC_DEFAULTS.maxProcesses,
    memoryLimitMb: options.memoryLimitMb ?? EXEC_DEFAULTS.memoryLimitMb,
    ...(options.workRoot === undefined ? {} : { workRoot: options.workRoot }),
  });
  const failure = sandbox.probe({ file: "/bin/true", args: [] });
  if (failure && options.unconfined) {
    warn(
      `UNCONFINED: the sandbox does not work (${failure}) and --unconfined / TRESTLE_EXEC_UNCONFINED=1 is set, so code execution runs programs WITHOUT a sandbox. Programs can read every file this service's user can, other processes' environments (the router's tokens), and reach the network and loopback. Never use this with untrusted callers.`,
    );
    return undefined;
  }
  if (failure) {
    throw new TrestleError(
      `The code execution sandbox does not work: ${failure}. Install bubblewrap and allow unprivileged user namespaces, or start with --unconfined (or TRESTLE_EXEC_UNCONFINED=1) to run programs WITHOUT isolation`,
      Code.FailedPrecondition,
    );
  }
  return sandbox;
}

function runtimesFor(
  options: ExecServiceOptions,
  sandbox: Sandbox | undefined,
  limits: RuntimeLimits,
  warn: (message: string) => void,
): Map<LanguageName, LanguageRuntime> {
  /** The runtime, when its interpreter starts in the sandbox under the run's limits; else why not. */
  const usable = (runtime: LanguageRuntime, box: Sandbox | undefined): string | undefined => {
    const addressSpaceBytes = runtime.addressSpaceBytes(limits);
    return box?.probe(runtime.probeCommand, {
      readOnlyPaths: runtime.readOnlyPaths,
      ...(addressSpaceBytes === undefined ? {} : { addressSpaceBytes }),
    });
  };
  const runtimes = new Map<LanguageName, LanguageRuntime>();
  const required = (runtime: LanguageRuntime) => {
    const failure = usable(runtime, sandbox);
    if (failure) {
      throw new TrestleError(
        `${runtime.name} cannot run in the code execution sandbox: ${failure}`,
        Code.FailedPrecondition,
      );
    }
    runtimes.set(runtime.name, runtime);
  };
  if (options.enableJavascript ?? true) required(javascriptRuntime(options.nodePath));
  if (options.python !== false) {
    const found = findPython(options.python ?? "python3");
    // A Python under a home directory (pyenv, a virtualenv) may be out of the sandbox user's reach; the
    // system one is the usual fallback.
    const candidates = [found, existsSync(SYSTEM_PYTHON) ? realpathSync(SYSTEM_PYTHON) : undefined];
    const failures: string[] = [];
    for (const candidate of new Set(candidates)) {
      if (candidate === undefined) continue;
      const runtime = pythonRuntime(candidate);
      const failure = usable(runtime, sandbox);
      if (!failure) {
        runtimes.set("python", runtime);
        if (failures.length > 0) warn(`python: using ${candidate}; ${failures.join("; ")}`);
        break;
      }
      failures.push(`${candidate} cannot run in the sandbox (${failure})`);
    }
    if (!runtimes.has("python") && failures.length > 0) {
      warn(`python is not offered: ${failures.join("; ")}`);
    }
  }
  if (options.enableBash) required(bashRuntime());
  return runtimes;
}

function timeoutOf(request: CodeExecutionRequest, defaultMs: number, maxMs: number): number {
  if (request.timeout === undefined || request.timeout <= 0n) return defaultMs;
  return Number(request.timeout > BigInt(maxMs) ? BigInt(maxMs) : request.timeout);
}

/**
 * Creates the code execution engine: JavaScript (Node's permission model confines file access to the run's
 * work directory), Python (`python3 -I` when found) and, when enabled, Bash.
 *
 * Each run goes through a bubblewrap sandbox ({@link createSandbox}): its own user, PID and network
 * namespaces, a read-only system, and a fresh tmpfs work directory (the code bound read-only into it) and
 * /dev/shm, sized within the memory limit, as the only writable paths. Where the host allows, each run also
 * gets a cgroup of its own with the memory limit, which the sandbox enters before the program starts (see
 * {@link chooseMemoryBound}); elsewhere address-space limits bound each process.
 * It gets an explicit environment (PATH, HOME and TMPDIR = the work directory, LANG, plus the request's
 * `environment`), the request's `arg0…argN` as argv, and its own process group. The stream answers PENDING,
 * then RUNNING, then each stdout/stderr chunk as it is produced, then one final reply (COMPLETED, FAILED,
 * TIMEOUT or CANCELLED) with the exit code. A timeout, output past the cap or a cancelled call kills the
 * whole sandbox; its cgroup and work directory are removed afterwards.
 *
 * The sandbox is tried once here (`bwrap … /bin/true`, then each interpreter), and so is a run cgroup.
 *
 * @throws TrestleError FailedPrecondition when the sandbox or an enabled interpreter does not work in it and
 *   `unconfined` is not set, or when the `cgroup` directory cannot be used; Unimplemented for `allowNetwork`.
 * @throws TrestleError (in the stream) InvalidArgument for an unknown or disabled language, empty code,
 *   malformed arguments or a refused environment variable; ResourceExhausted when too many runs are going.
 */
export function createExecService(options: ExecServiceOptions = {}): ExecService {
  const engineName = options.engineName ?? EXEC_DEFAULTS.engineName;
  const warn = options.onWarning ?? defaultWarning;
  const sandbox = sandboxFor(options, warn);
  const memoryLimitMb = options.memoryLimitMb ?? EXEC_DEFAULTS.memoryLimitMb;
  const maxConcurrentRuns = options.maxConcurrentRuns ?? EXEC_DEFAULTS.maxConcurrentRuns;
  const { bound: memoryBound, cgroups } = chooseMemoryBound({
    memoryLimitMb,
    maxProcesses: options.maxProcesses ?? EXEC_DEFAULTS.maxProcesses,
    sandboxed: sandbox !== undefined,
    ...(options.cgroup === undefined ? {} : { cgroup: options.cgroup }),
  });
  (options.onMemoryBound ?? defaultMemoryBoundNotice)(
    memoryBound,
    describeMemoryBound(memoryBound, maxConcurrentRuns),
  );
  const limits: RuntimeLimits = { memoryLimitMb, memoryBound: memoryBound.mode };
  const runtimes = runtimesFor(options, sandbox, limits, warn);
  const defaultTimeoutMs = options.defaultTimeoutMs ?? EXEC_DEFAULTS.defaultTimeoutMs;
  const maxTimeoutMs = options.maxTimeoutMs ?? EXEC_DEFAULTS.maxTimeoutMs;
  const killGraceMs = options.killGraceMs ?? EXEC_DEFAULTS.killGraceMs;
  const maxOutputBytes = options.maxOutputBytes ?? EXEC_DEFAULTS.maxOutputBytes;
  const workRoot = options.workRoot ?? tmpdir();
  const path = options.path ?? (sandbox ? SANDBOX_PATH : (process.env.PATH ?? SANDBOX_PATH));
  let running = 0;

  function runtimeFor(uri: string): LanguageRuntime {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new TrestleError(
        `${JSON.stringify(uri)} is not a code-execution-engine:// URI`,
        Code.InvalidArgument,
      );
    }
    const engine = url.hostname;
    const language = decodeURIComponent(url.pathname.replace(/^\//, ""));
    if (url.protocol !== "code-execution-engine:" || engine !== engineName) {
      throw new TrestleError(
        `This engine serves code-execution-engine://${engineName}/<language>, not ${uri}`,
        Code.InvalidArgument,
      );
    }
    const runtime = runtimes.get(language as LanguageName);
    if (!runtime) {
      throw new TrestleError(
        `Language ${JSON.stringify(language)} is not enabled on this engine (enabled: ${[...runtimes.keys()].join(", ")})`,
        Code.InvalidArgument,
      );
    }
    return runtime;
  }

  /** Writes code mode's prelude for the run's tools into the work directory; its path. */
  async function writePrelude(
    runtime: LanguageRuntime,
    workDir: string,
    access: ToolAccess,
    signal: AbortSignal,
  ): Promise<string> {
    const tools: RunTool[] = await fetchRunTools(access, signal);
    const file = join(workDir, runtime.preludeFileName as string);
    await writeFile(file, runtime.name === "python" ? pythonPrelude(tools) : javascriptPrelude(tools), {
      mode: 0o600,
    });
    return file;
  }

  async function* execute(
    request: CodeExecutionRequest,
    signal: AbortSignal,
    metadata: Readonly<Record<string, string>>,
  ): AsyncGenerator<CodeExecutionReplyInit> {
    const runtime = runtimeFor(request.uri);
    // A router that offers the run its namespace's tools sends where and with what; the engine keeps both.
    const access = runtime.preludeFileName ? toolAccessFrom(metadata) : undefined;
    if (request.code.trim() === "")
      throw new TrestleError("The request carries no code", Code.InvalidArgument);
    const args = scriptArguments(request.arguments);
    const timeoutMs = timeoutOf(request, defaultTimeoutMs, maxTimeoutMs);
    if (running >= maxConcurrentRuns) {
      throw new TrestleError(
        `The engine is already running ${maxConcurrentRuns} programs`,
        Code.ResourceExhausted,
      );
    }
    running++;
    let workDir: string | undefined;
    let run: ProcessRun | undefined;
    let channel: ToolChannel | undefined;
    // Made while the work directory is prepared; the sandbox waits for it before the program starts.
    const group = cgroups?.create();
    group?.catch(() => undefined);
    try {
      yield statusReply(ExecutionStatus.PENDING);
      // The real path: Node's permission model compares resolved paths.
      workDir = await realpath(await mkdtemp(join(workRoot, "trestle-exec-")));
      const env = runEnvironment({ workDir, path, lang: process.env.LANG }, request.environment);
      const codeFile = join(workDir, runtime.fileName);
      await writeFile(codeFile, request.code, { mode: 0o600 });
      const preludeFile = access ? await writePrelude(runtime, workDir, access, signal) : undefined;
      const codeFiles = preludeFile ? [codeFile, preludeFile] : [codeFile];
      const command = runtime.command(workDir, codeFile, args, limits, preludeFile);
      const addressSpaceBytes = runtime.addressSpaceBytes(limits);
      let spawnAs: {
        command: RunCommand;
        env: Record<string, string>;
        uid?: number;
        gid?: number;
        held?: HeldStart;
        channelFd?: number;
      };
      if (sandbox) {
        sandbox.prepareWorkDir(workDir, codeFiles);
        const { held, ...sandboxed } = sandbox.wrap(command, {
          workDir,
          codeFiles,
          ...(access ? { channel: true } : {}),
          env,
          readOnlyPaths: runtime.readOnlyPaths,
          held: group !== undefined,
          ...(addressSpaceBytes === undefined ? {} : { addressSpaceBytes }),
        });
        // bwrap gets no environment of its own: the program's is set inside with --setenv.
        spawnAs = { ...sandboxed, env: {}, ...(access ? { channelFd: SANDBOX_CHANNEL_FD } : {}) };
        if (held && group) spawnAs.held = { ...held, place: (pids) => placeRun(group, pids) };
      } else {
        warn(`UNCONFINED: running a ${runtime.name} program without a sandbox`);
        const limited =
          addressSpaceBytes === undefined ? command : underAddressSpaceLimit(addressSpaceBytes, command);
        spawnAs = { command: limited, env, ...(access ? { channelFd: PROGRAM_CHANNEL_FD } : {}) };
      }
      run = startProcessRun({
        ...spawnAs,
        cwd: workDir,
        timeoutMs,
        killGraceMs,
        maxOutputBytes,
        signal,
      });
      if (access && run.channel) {
        // Each call is relayed to the router with the run's capability, which the program never sees.
        // Within the router's concurrency (it enforces it too): calls past it wait their turn.
        channel = serveToolChannel(run.channel, (call) => callRunTool(access, call), {
          ...(access.maxConcurrentCalls ? { maxConcurrentCalls: access.maxConcurrentCalls } : {}),
        });
      }
      yield statusReply(ExecutionStatus.RUNNING);
      for await (const event of run.events) {
        if (event.type === "output") {
          yield {
            content: [event.text],
            outputType: event.stream === "stdout" ? OutputType.STDOUT : OutputType.STDERR,
            status: ExecutionStatus.RUNNING,
            timestamp: timestampFromMs(Date.now()),
          };
        } else {
          const message =
            event.outcome === "failed" && group && (await (await group).reachedMemoryLimit())
              ? `Stopped at the memory limit of ${memoryLimitMb} MiB: the kernel killed the program (${event.message})`
              : event.message;
          yield {
            content: message === "" ? [] : [message],
            outputType: OutputType.COMPLETION,
            status: FINAL_STATUS[event.outcome],
            exitCode: event.exitCode,
            timestamp: timestampFromMs(Date.now()),
          };
        }
      }
    } finally {
      // Reached early when the consumer stops reading: the program must not outlive the stream.
      if (run) {
        run.cancel();
        await run.done;
      }
      channel?.close();
      run?.channel?.destroy();
      if (group) await removeRunGroup(group);
      running--;
      if (workDir) await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Moves a held sandbox into its run's cgroup; the caller learns only the error code, the log the rest. */
  async function placeRun(group: Promise<RunCgroup>, pids: readonly number[]): Promise<void> {
    try {
      await (await group).place(pids);
    } catch (error) {
      warn(
        `a run could not be placed in its cgroup: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw new Error((error as NodeJS.ErrnoException).code ?? "cgroup error");
    }
  }

  async function removeRunGroup(group: Promise<RunCgroup>): Promise<void> {
    try {
      await (await group).remove();
    } catch (error) {
      // Never made (the run failed to be placed), or left behind empty: worth the operator's eye, not the caller's.
      warn(`a run's cgroup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  return {
    engineName,
    languages: [...runtimes.keys()],
    memoryBound,
    codeExecutor(request, context) {
      return execute(request, context.signal, context.metadata);
    },
    healthProbe() {
      return { status: RuntimeStatus.STARTED };
    },
  };
}
