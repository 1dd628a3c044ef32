import { z } from "zod";

/** The protocols the router speaks itself: no plugin may take their names. */
export const BUILTIN_PROTOCOLS = ["grpc", "connect", "mcp", "a2a"] as const;

/** A protocol name as a registration may carry it (the registry's rule): lower case, up to 32 characters. */
const PROTOCOL_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** A bare npm package name (`name` or `@scope/name`): never a path or a URL, so only installed packages load. */
const PACKAGE_NAME = /^(@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

/** Why a protocol name cannot name a plugin, or `undefined` when it can. */
export function protocolNameProblem(protocol: string): string | undefined {
  if ((BUILTIN_PROTOCOLS as readonly string[]).includes(protocol))
    return `'${protocol}' is a protocol the router speaks itself (${BUILTIN_PROTOCOLS.join(", ")}); give the plugin's protocol another name`;
  if (!PROTOCOL_NAME.test(protocol))
    return `'${protocol}' is not a protocol name: a lower-case letter, then up to 31 lower-case letters, digits or '-'`;
  return undefined;
}

const transportPluginSchema = z.strictObject({
  package: z
    .string()
    .regex(PACKAGE_NAME, "must be an npm package name (name or @scope/name), not a path or URL")
    .describe("The npm package of the transport plugin"),
  options: z
    .unknown()
    .optional()
    .describe("The plugin's options, checked by the plugin's own optionsSchema ({} when absent)"),
});

/**
 * The configuration keys of transport plugins: their schema (spread into the router's config schema, so the
 * reference documents them with the rest) and where they come from.
 */
export const transportsConfigFields = {
  transports: z
    .record(z.string(), transportPluginSchema)
    .default({})
    .superRefine((transports, context) => {
      for (const protocol of Object.keys(transports)) {
        const problem = protocolNameProblem(protocol);
        if (problem) context.addIssue({ code: "custom", message: problem, path: [protocol] });
      }
    })
    .describe(
      "Transport plugins by protocol name: {<protocol>: {package, options}}; each package is loaded at start (from transportPluginDirectory, then beside the router) and serves every service whose protocol names it",
    ),
  transportPluginDirectory: z
    .string()
    .min(1)
    .optional()
    .describe(
      "A directory whose node_modules is searched first for transport plugin packages (npm install --prefix <dir> <package>)",
    ),
};

/** Where the transport plugin keys come from. */
export const transportsConfigSources: Record<
  keyof typeof transportsConfigFields,
  { env: string; flag: string }
> = {
  transports: { env: "TRESTLE_TRANSPORTS", flag: "--transport" },
  transportPluginDirectory: { env: "TRESTLE_TRANSPORT_PLUGIN_DIR", flag: "--transport-plugin-dir" },
};

/** The configured transport plugins, by protocol. */
export type TransportPluginsConfig = z.output<typeof transportsConfigFields.transports>;

/**
 * The `transports` of the file and environment with the packages of `--transport <protocol>=<package>` flags:
 * a flag names the package of its protocol and keeps the options configured for it there.
 */
export function withTransportFlags(configured: unknown, flagged: Record<string, string>): unknown {
  if (configured !== undefined && (configured === null || typeof configured !== "object")) return configured;
  const merged: Record<string, unknown> = { ...(configured as Record<string, unknown> | undefined) };
  for (const [protocol, packageName] of Object.entries(flagged)) {
    const before = merged[protocol];
    const options =
      before !== null && typeof before === "object" ? (before as { options?: unknown }).options : undefined;
    merged[protocol] = { package: packageName, ...(options === undefined ? {} : { options }) };
  }
  return merged;
}

/**
 * Parses the values of `--transport <protocol>=<package>` (repeatable).
 * @throws Error naming the value that is not `protocol=package`.
 */
export function parseTransportFlags(values: readonly string[]): Record<string, string> {
  const flagged: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf("=");
    if (eq <= 0 || eq === value.length - 1)
      throw new Error(`--transport needs PROTOCOL=PACKAGE (e.g. http-json=my-transport), not '${value}'`);
    flagged[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return flagged;
}
