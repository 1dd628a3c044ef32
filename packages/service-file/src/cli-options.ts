import { parseArgs } from "node:util";
import { Code, TrestleError } from "@trestle/core";
import type { StartFileServiceOptions } from "./start-file-service.js";

/** The usage text of `trestle-file`. */
export const FILE_USAGE = `Usage: trestle-file [options]

  --root DIR              serve the files under DIR (repeatable), default the current directory
                          (env TRESTLE_FILE_ROOTS, separated by the path delimiter ":")
  --exclude DIR           never serve DIR or anything in it, even under a root (repeatable;
                          env TRESTLE_FILE_EXCLUDED_ROOTS, separated by ":"); ./.trestle and the
                          home are always excluded
  --router URL            register with this router (env TRESTLE_ROUTER_URL)
  --host HOST             interface to listen on, default 127.0.0.1 (env TRESTLE_SERVICE_HOST)
  --port PORT             port to listen on, default 0 = any free port (env TRESTLE_SERVICE_PORT)
  --advertise-host HOST   host the router should call, default the listen host
  --home DIR              provisioned files and registration id, default ./.trestle/services/file
  --max-file-bytes N      largest file served, default 8388608

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
 * Reads `trestle-file`'s flags and environment into {@link StartFileServiceOptions}; flags win over the
 * environment. Returns `"help"` for `--help`.
 *
 * @throws TrestleError InvalidArgument for an unknown flag or a malformed number.
 */
export function parseFileCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): StartFileServiceOptions | "help" {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new TrestleError((error as Error).message, Code.InvalidArgument);
  }
  if (values.help) return "help";
  const envRoots = env.TRESTLE_FILE_ROOTS?.split(":").filter((root) => root !== "");
  const options: StartFileServiceOptions = {
    host: values.host ?? env.TRESTLE_SERVICE_HOST ?? "127.0.0.1",
    port: integer("--port", values.port ?? env.TRESTLE_SERVICE_PORT, 0) ?? 0,
    roots: values.root ?? (envRoots && envRoots.length > 0 ? envRoots : [process.cwd()]),
  };
  const envExcluded = env.TRESTLE_FILE_EXCLUDED_ROOTS?.split(":").filter((dir) => dir !== "");
  const excluded = [...(envExcluded ?? []), ...(values.exclude ?? [])];
  if (excluded.length > 0) options.excludedRoots = excluded;
  const routerUrl = values.router ?? env.TRESTLE_ROUTER_URL;
  if (routerUrl) options.routerUrl = routerUrl;
  if (env.TRESTLE_ROUTER_TOKEN) options.routerToken = env.TRESTLE_ROUTER_TOKEN;
  // From the environment only: a command line is readable by every user of the machine.
  if (env.TRESTLE_CAPABILITY_SECRET) options.callSecret = env.TRESTLE_CAPABILITY_SECRET;
  if (values["advertise-host"]) options.advertiseHost = values["advertise-host"];
  if (values.home) options.home = values.home;
  const maxFileBytes = integer("--max-file-bytes", values["max-file-bytes"], 1);
  if (maxFileBytes !== undefined) options.maxFileBytes = maxFileBytes;
  return options;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      root: { type: "string", multiple: true },
      exclude: { type: "string", multiple: true },
      router: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "advertise-host": { type: "string" },
      home: { type: "string" },
      "max-file-bytes": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}
