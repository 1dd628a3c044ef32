import { parseArgs } from "node:util";
import { Code, TrestleError } from "@trestle/core";
import type { StartHttpServiceOptions } from "./start-http-service.js";

/** The usage text of `trestle-http`. */
export const HTTP_USAGE = `Usage: trestle-http [options]

  --router URL            register with this router (env TRESTLE_ROUTER_URL)
  --host HOST             interface to listen on, default 127.0.0.1 (env TRESTLE_SERVICE_HOST)
  --port PORT             port to listen on, default 0 = any free port (env TRESTLE_SERVICE_PORT)
  --advertise-host HOST   host the router should call, default the listen host
  --home DIR              provisioned files and registration id, default ./.trestle/services/http
  --allow-private         allow private, loopback and link-local addresses
  --allow-host HOST       only call these hosts (repeatable; *.example.com for subdomains)
  --timeout-ms MS         deadline of one call, default 10000
  --max-response-bytes N  longest response body returned, default 1048576

The router token, if the router needs one, is read from TRESTLE_ROUTER_TOKEN only. The call secret, if set,
is read from TRESTLE_CAPABILITY_SECRET only: every call must then carry it in x-trestle-capability-secret.`;

function positiveInteger(name: string, text: string | undefined, allowZero = false): number | undefined {
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new TrestleError(
      `${name} must be a ${allowZero ? "non-negative" : "positive"} integer`,
      Code.InvalidArgument,
    );
  }
  return value;
}

/**
 * Reads `trestle-http`'s flags and environment into {@link StartHttpServiceOptions}; flags win over the
 * environment. Returns `"help"` for `--help`.
 *
 * @throws TrestleError InvalidArgument for an unknown flag or a malformed number.
 */
export function parseHttpCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): StartHttpServiceOptions | "help" {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new TrestleError((error as Error).message, Code.InvalidArgument);
  }
  if (values.help) return "help";
  const options: StartHttpServiceOptions = {
    host: values.host ?? env.TRESTLE_SERVICE_HOST ?? "127.0.0.1",
    port: positiveInteger("--port", values.port ?? env.TRESTLE_SERVICE_PORT, true) ?? 0,
    allowPrivate: values["allow-private"] ?? false,
    allowedHosts: values["allow-host"] ?? [],
  };
  const routerUrl = values.router ?? env.TRESTLE_ROUTER_URL;
  if (routerUrl) options.routerUrl = routerUrl;
  if (env.TRESTLE_ROUTER_TOKEN) options.routerToken = env.TRESTLE_ROUTER_TOKEN;
  // From the environment only: a command line is readable by every user of the machine.
  if (env.TRESTLE_CAPABILITY_SECRET) options.callSecret = env.TRESTLE_CAPABILITY_SECRET;
  if (values["advertise-host"]) options.advertiseHost = values["advertise-host"];
  if (values.home) options.home = values.home;
  const timeoutMs = positiveInteger("--timeout-ms", values["timeout-ms"]);
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  const maxResponseBytes = positiveInteger("--max-response-bytes", values["max-response-bytes"]);
  if (maxResponseBytes !== undefined) options.maxResponseBytes = maxResponseBytes;
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
      "allow-private": { type: "boolean" },
      "allow-host": { type: "string", multiple: true },
      "timeout-ms": { type: "string" },
      "max-response-bytes": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}
