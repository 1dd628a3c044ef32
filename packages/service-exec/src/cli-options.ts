import { parseArgs } from "node:util";
import { Code, TrestleError } from "@trestle/core";
import type { StartExecServiceOptions } from "./start-exec-service.js";

/** The usage text of `trestle-exec`. */
export const EXEC_USAGE = `Usage: trestle-exec [options]

  --router URL            register with this router (env TRESTLE_ROUTER_URL)
  --host HOST             interface to listen on, default 127.0.0.1 (env TRESTLE_SERVICE_HOST)
  --port PORT             port to listen on, default 0 = any free port (env TRESTLE_SERVICE_PORT)
  --advertise-host HOST   host the router should call, default the listen host
  --home DIR              registration ids, default ./.trestle/services/exec
  --engine NAME           engine type to register as, default trestle
  --enable-bash           offer bash (off by default: it can run any program on PATH)
  --no-javascript         do not offer javascript
  --python CMD            python interpreter to look for, default python3
  --no-python             do not offer python
  --timeout-ms MS         timeout when a request names none, default 30000
  --max-timeout-ms MS     longest timeout a request may ask for, default 300000
  --max-output-bytes N    stdout + stderr per run, default 1048576
  --memory-limit-mb MB    memory per run, default 512
  --max-concurrent-runs N runs at once, default 4
  --work-root DIR         where per-run work directories are created, default the temporary directory
  --max-processes N       processes and threads per run (RLIMIT_NPROC in its sandbox), default 256
  --bwrap PATH            the bubblewrap binary, default /usr/bin/bwrap (env TRESTLE_EXEC_BWRAP)
  --unconfined            where the sandbox does not work, run programs WITHOUT it, loudly warned
                          (env TRESTLE_EXEC_UNCONFINED=1); without it the engine then refuses to start
  --allow-network         give programs a network: not supported, the engine refuses to start with it

The router token, if the router needs one, is read from TRESTLE_ROUTER_TOKEN only. The call secret, if set,
is read from TRESTLE_CAPABILITY_SECRET only: every call must then carry it in x-trestle-capability-secret.`;

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new TrestleError(`${name} must be an integer of at least ${min}`, Code.InvalidArgument);
  }
  return value;
}

/**
 * Reads `trestle-exec`'s flags and environment into {@link StartExecServiceOptions}; flags win over the
 * environment. Returns `"help"` for `--help`.
 *
 * @throws TrestleError InvalidArgument for an unknown flag or a malformed number.
 */
export function parseExecCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): StartExecServiceOptions | "help" {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new TrestleError((error as Error).message, Code.InvalidArgument);
  }
  if (values.help) return "help";
  const options: StartExecServiceOptions = {
    host: values.host ?? env.TRESTLE_SERVICE_HOST ?? "127.0.0.1",
    port: integer("--port", values.port ?? env.TRESTLE_SERVICE_PORT, 0) ?? 0,
    enableBash: values["enable-bash"] ?? false,
    enableJavascript: !(values["no-javascript"] ?? false),
    python: values["no-python"] ? false : (values.python ?? "python3"),
  };
  if (values.unconfined || env.TRESTLE_EXEC_UNCONFINED === "1") options.unconfined = true;
  if (values["allow-network"]) options.allowNetwork = true;
  const bwrapPath = values.bwrap ?? env.TRESTLE_EXEC_BWRAP;
  if (bwrapPath) options.bwrapPath = bwrapPath;
  const routerUrl = values.router ?? env.TRESTLE_ROUTER_URL;
  if (routerUrl) options.routerUrl = routerUrl;
  if (env.TRESTLE_ROUTER_TOKEN) options.routerToken = env.TRESTLE_ROUTER_TOKEN;
  // From the environment only: a command line is readable by every user of the machine.
  if (env.TRESTLE_CAPABILITY_SECRET) options.callSecret = env.TRESTLE_CAPABILITY_SECRET;
  if (values["advertise-host"]) options.advertiseHost = values["advertise-host"];
  if (values.home) options.home = values.home;
  if (values.engine) options.engineName = values.engine;
  if (values["work-root"]) options.workRoot = values["work-root"];
  const numbers: [keyof StartExecServiceOptions, string, number][] = [
    ["defaultTimeoutMs", "timeout-ms", 1],
    ["maxTimeoutMs", "max-timeout-ms", 1],
    ["maxOutputBytes", "max-output-bytes", 1],
    ["memoryLimitMb", "memory-limit-mb", 16],
    ["maxConcurrentRuns", "max-concurrent-runs", 1],
    ["maxProcesses", "max-processes", 8],
  ];
  for (const [key, flag, min] of numbers) {
    const value = integer(`--${flag}`, values[flag as keyof typeof values] as string | undefined, min);
    if (value !== undefined) (options as Record<string, unknown>)[key] = value;
  }
  return options;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      router: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "advertise-host": { type: "string" },
      home: { type: "string" },
      engine: { type: "string" },
      "enable-bash": { type: "boolean" },
      "no-javascript": { type: "boolean" },
      python: { type: "string" },
      "no-python": { type: "boolean" },
      "timeout-ms": { type: "string" },
      "max-timeout-ms": { type: "string" },
      "max-output-bytes": { type: "string" },
      "memory-limit-mb": { type: "string" },
      "max-concurrent-runs": { type: "string" },
      "work-root": { type: "string" },
      "max-processes": { type: "string" },
      bwrap: { type: "string" },
      unconfined: { type: "boolean" },
      "allow-network": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
