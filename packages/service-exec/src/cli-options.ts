import {
  type CapabilityCli,
  parseCapabilityCli,
  type ServiceEnvironment,
  serviceUsage,
} from "@trestle/capability";
import type { ExecServiceOptions } from "./exec-service.js";
import type { StartExecServiceOptions } from "./start-exec-service.js";

const EXEC_FLAGS = {
  engine: { type: "string", placeholder: "NAME", description: "engine type to register as, default trestle" },
  "enable-bash": {
    type: "boolean",
    description: "offer bash (off by default: it can run any program on PATH)",
  },
  "no-javascript": { type: "boolean", description: "do not offer javascript" },
  python: {
    type: "string",
    placeholder: "CMD",
    description: "python interpreter to look for, default python3",
  },
  "no-python": { type: "boolean", description: "do not offer python" },
  "timeout-ms": {
    type: "integer",
    min: 1,
    placeholder: "MS",
    description: "timeout when a request names none, default 30000",
  },
  "max-timeout-ms": {
    type: "integer",
    min: 1,
    placeholder: "MS",
    description: "longest timeout a request may ask for, default 300000",
  },
  "max-output-bytes": {
    type: "integer",
    min: 1,
    placeholder: "N",
    description: "stdout + stderr per run, default 1048576",
  },
  "memory-limit-mb": {
    type: "integer",
    min: 16,
    placeholder: "MB",
    description: "memory per run, default 512",
  },
  "max-concurrent-runs": {
    type: "integer",
    min: 1,
    placeholder: "N",
    description: "runs at once, default 4",
  },
  cgroup: {
    type: "string",
    placeholder: "DIR",
    description:
      "make each run's cgroup in DIR (cgroup v2 delegated to the engine, or v1's memory\nhierarchy); default: below the engine's own cgroup where it may",
  },
  "no-cgroup": {
    type: "boolean",
    description: "no cgroups: bound memory by address-space limits and sized tmpfs mounts only",
  },
  "work-root": {
    type: "string",
    placeholder: "DIR",
    description: "where per-run work directories are created, default the temporary directory",
  },
  "max-processes": {
    type: "integer",
    min: 8,
    placeholder: "N",
    description: "processes and threads per run (RLIMIT_NPROC in its sandbox), default 256",
  },
  bwrap: {
    type: "string",
    placeholder: "PATH",
    description: "the bubblewrap binary, default /usr/bin/bwrap (env TRESTLE_EXEC_BWRAP)",
  },
  unconfined: {
    type: "boolean",
    description:
      "where the sandbox does not work, run programs WITHOUT it, loudly warned\n(env TRESTLE_EXEC_UNCONFINED=1); without it the engine then refuses to start",
  },
  "allow-network": {
    type: "boolean",
    description: "give programs a network: not supported, the engine refuses to start with it",
  },
} as const;

/** `trestle-exec`'s command line: the standard flags of `@trestle/capability` and the engine's own. */
export const EXEC_CLI: CapabilityCli<typeof EXEC_FLAGS, ExecServiceOptions> = {
  program: "trestle-exec",
  defaultHome: "./.trestle/services/exec",
  flags: EXEC_FLAGS,
  options(flags, env) {
    const options: ExecServiceOptions = {
      enableBash: flags["enable-bash"] ?? false,
      enableJavascript: !(flags["no-javascript"] ?? false),
      python: flags["no-python"] ? false : (flags.python ?? "python3"),
    };
    if (flags.unconfined || env.TRESTLE_EXEC_UNCONFINED === "1") options.unconfined = true;
    if (flags["allow-network"]) options.allowNetwork = true;
    const bwrapPath = flags.bwrap ?? env.TRESTLE_EXEC_BWRAP;
    if (bwrapPath) options.bwrapPath = bwrapPath;
    if (flags.engine) options.engineName = flags.engine;
    if (flags["work-root"]) options.workRoot = flags["work-root"];
    if (flags["no-cgroup"]) options.cgroup = false;
    else if (flags.cgroup) options.cgroup = flags.cgroup;
    const numbers: [keyof ExecServiceOptions, number | undefined][] = [
      ["defaultTimeoutMs", flags["timeout-ms"]],
      ["maxTimeoutMs", flags["max-timeout-ms"]],
      ["maxOutputBytes", flags["max-output-bytes"]],
      ["memoryLimitMb", flags["memory-limit-mb"]],
      ["maxConcurrentRuns", flags["max-concurrent-runs"]],
      ["maxProcesses", flags["max-processes"]],
    ];
    for (const [key, value] of numbers) {
      if (value !== undefined) (options as Record<string, unknown>)[key] = value;
    }
    return options;
  },
};

/** The usage text of `trestle-exec`. */
export const EXEC_USAGE = serviceUsage(EXEC_CLI);

/** `trestle-exec`'s options from its flags and environment (see `parseCapabilityCli`); `"help"` for `--help`. */
export const parseExecCommandLine = (
  argv: readonly string[],
  env: ServiceEnvironment,
): StartExecServiceOptions | "help" => parseCapabilityCli(EXEC_CLI, argv, env);
