import {
  type CapabilityCli,
  parseCapabilityCli,
  type ServiceEnvironment,
  serviceUsage,
} from "@trestle/capability";
import type { HttpServiceOptions } from "./http-service.js";
import type { StartHttpServiceOptions } from "./start-http-service.js";

const HTTP_FLAGS = {
  "allow-private": {
    type: "boolean",
    description: "allow private, loopback and link-local addresses",
  },
  "allow-host": {
    type: "string",
    multiple: true,
    placeholder: "HOST",
    description: "only call these hosts (repeatable; *.example.com for subdomains)",
  },
  "timeout-ms": {
    type: "integer",
    min: 1,
    placeholder: "MS",
    description: "deadline of one call, default 10000",
  },
  "max-response-bytes": {
    type: "integer",
    min: 1,
    placeholder: "N",
    description: "longest response body returned, default 1048576",
  },
} as const;

/** `trestle-http`'s command line: the standard flags of `@trestle/capability` and the HTTP invoker's own. */
export const HTTP_CLI: CapabilityCli<typeof HTTP_FLAGS, HttpServiceOptions> = {
  program: "trestle-http",
  home: "provisioned files and registration id",
  defaultHome: "./.trestle/services/http",
  flags: HTTP_FLAGS,
  options(flags) {
    const options: HttpServiceOptions = {
      allowPrivate: flags["allow-private"] ?? false,
      allowedHosts: flags["allow-host"] ?? [],
    };
    if (flags["timeout-ms"] !== undefined) options.timeoutMs = flags["timeout-ms"];
    if (flags["max-response-bytes"] !== undefined) options.maxResponseBytes = flags["max-response-bytes"];
    return options;
  },
};

/** The usage text of `trestle-http`. */
export const HTTP_USAGE = serviceUsage(HTTP_CLI);

/** `trestle-http`'s options from its flags and environment (see `parseCapabilityCli`); `"help"` for `--help`. */
export const parseHttpCommandLine = (
  argv: readonly string[],
  env: ServiceEnvironment,
): StartHttpServiceOptions | "help" => parseCapabilityCli(HTTP_CLI, argv, env);
