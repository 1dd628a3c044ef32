/**
 * Loading the transport plugins the configuration names (`transports.<protocol>.package`): each package is found
 * with Node's ESM resolution (its `exports` honoured), imported, checked against the plugin contract of
 * `@trestle/core/plugin`, given its validated options and the router's context, and its transport made. Any
 * failure stops the start with one sentence naming the package and what is wrong.
 */
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BridgeTransport } from "@trestle/core";
import {
  type StandardSchemaV1,
  TRANSPORT_CONTRACT_VERSION,
  type TransportPluginContext,
  type TransportPluginLogger,
} from "@trestle/core/plugin";
import type { Logger } from "pino";
import type { RouterConfig } from "../config.js";
import type { TransportPluginsConfig } from "../config-transports.js";
import { StartError } from "./start-error.js";
import { routerTls, serviceTimeouts } from "./transports.js";

/** The plugin contract versions this router loads; a plugin written for another is refused at start. */
export const SUPPORTED_TRANSPORT_CONTRACT_VERSIONS: readonly number[] = [TRANSPORT_CONTRACT_VERSION];

/** A failure to load a transport plugin: its message is one sentence naming the package and the problem. */
export class TransportPluginError extends StartError {
  constructor(message: string) {
    super(message);
    this.name = "TransportPluginError";
  }
}

/** What {@link loadTransportPlugins} needs besides the configured plugins. */
export interface TransportPluginLoading {
  /** `transports` of the configuration. */
  transports: TransportPluginsConfig;
  /** `transportPluginDirectory`: its `node_modules` is searched first. */
  pluginDirectory?: string | undefined;
  /** Where the router's own files are (a file URL): packages installed beside it are found from there. */
  routerUrl?: string;
  /** The context handed to the factory of the plugin wired under `protocol`, less its logger. */
  context: Omit<TransportPluginContext, "protocol" | "logger">;
  /** A logger scoped to the plugin wired under `protocol`. */
  loggerFor(protocol: string, packageName: string): TransportPluginLogger;
}

/** Node's ESM resolution of a bare specifier from a base URL (`import-meta-resolve`'s `moduleResolve`). */
type ModuleResolve = (
  specifier: string,
  base: URL,
  conditions?: Set<string>,
  preserveSymlinks?: boolean,
) => URL;

/** A place a package is looked for: the file URL resolution starts from, and how a sentence names it. */
interface SearchPlace {
  base: URL;
  /** The resolved file must be inside this directory to count (the plugin directory's `node_modules`). */
  within?: string;
  describe: string;
}

/** The first line of what was thrown, for a one-sentence report. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split("\n")[0] ?? "").trim() || "(no message)";
}

/** The directory of the package holding `fileUrl` (the router's own: two levels up from `dist/root`). */
function routerPackageDir(fileUrl: string): string {
  return resolve(dirname(fileURLToPath(fileUrl)), "..", "..");
}

function searchPlaces(loading: TransportPluginLoading): SearchPlace[] {
  const places: SearchPlace[] = [];
  if (loading.pluginDirectory) {
    const dir = resolve(loading.pluginDirectory);
    places.push({
      base: pathToFileURL(`${dir}${sep}`),
      within: join(dir, "node_modules") + sep,
      describe: join(dir, "node_modules"),
    });
  }
  const routerUrl = loading.routerUrl ?? import.meta.url;
  places.push({
    base: new URL(routerUrl),
    describe: `the node_modules directories above the router (${routerPackageDir(routerUrl)})`,
  });
  return places;
}

/** Why a resolution failure means the package is not there, rather than there and broken. */
function isNotFound(error: unknown): boolean {
  const { code, message } = error as NodeJS.ErrnoException;
  return code === "ERR_MODULE_NOT_FOUND" && /^Cannot find package/.test(message);
}

/**
 * The file URL of `packageName`'s main entry for `import`, from the first place that has the package.
 * @throws TransportPluginError when no place has it, or its manifest or `exports` offer no entry to import.
 */
function resolvePlugin(
  moduleResolve: ModuleResolve,
  packageName: string,
  places: SearchPlace[],
  say: (p: string) => string,
): URL {
  for (const place of places) {
    let url: URL;
    try {
      // Symlinks kept while resolving in the plugin directory, so that a package linked there (pnpm, npm link)
      // is still seen as the directory's; Node's import follows them as usual.
      url = moduleResolve(packageName, place.base, undefined, place.within !== undefined);
    } catch (error) {
      if (isNotFound(error)) continue;
      throw new TransportPluginError(say(`it cannot be resolved: ${firstLine(error)}`));
    }
    // Resolution walks up from the plugin directory; a package found above it is not the directory's.
    if (place.within && url.protocol === "file:" && !fileURLToPath(url).startsWith(place.within)) continue;
    return url;
  }
  const where = places.map((p) => p.describe).join(", then ");
  const install = places[0]?.within
    ? `npm install --prefix ${dirname(places[0].within)} ${packageName}`
    : `npm install --global ${packageName} (beside a globally installed router), or set transportPluginDirectory and npm install --prefix <dir> ${packageName}`;
  return fail(say(`the package is not installed: looked in ${where}; install it with ${install}`));
}

function fail(message: string): never {
  throw new TransportPluginError(message);
}

/** The issues of a failed Standard Schema validation, each with its path under `options`. */
function describeIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((segment) =>
        String(typeof segment === "object" && segment !== null ? segment.key : segment),
      );
      return `${["options", ...path].join(".")}: ${issue.message}`;
    })
    .join("; ");
}

/** Whether a value has a Standard Schema's `validate`. */
function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const standard = (value as { "~standard"?: { validate?: unknown } } | null)?.["~standard"];
  return typeof standard?.validate === "function";
}

/** Whether a factory's result can serve as a transport: every method the router calls. */
function isTransport(value: unknown): value is BridgeTransport {
  const t = value as Record<string, unknown> | null;
  return (
    t !== null &&
    typeof t === "object" &&
    ["callTool", "readResource", "executeCode", "provision", "probeHealth", "close"].every(
      (method) => typeof t[method] === "function",
    )
  );
}

/** Loads one plugin: resolve, import, check the contract, validate the options, make the transport. */
async function loadOne(
  protocol: string,
  plugin: { package: string; options?: unknown },
  places: SearchPlace[],
  loading: TransportPluginLoading,
  moduleResolve: ModuleResolve,
): Promise<BridgeTransport> {
  const packageName = plugin.package;
  const say = (problem: string) =>
    `transport plugin ${packageName} (transports.${protocol}) cannot be loaded: ${problem}`;
  const url = resolvePlugin(moduleResolve, packageName, places, say);
  let module: Record<string, unknown>;
  try {
    module = (await import(url.href)) as Record<string, unknown>;
  } catch (error) {
    return fail(say(`importing ${fileURLToPath(url)} threw: ${firstLine(error)}`));
  }
  const supported = SUPPORTED_TRANSPORT_CONTRACT_VERSIONS.join(", ");
  if (typeof module.default !== "function")
    fail(say("its main entry has no default export that is a function (the transport's factory)"));
  if (typeof module.contractVersion !== "number")
    fail(
      say(
        `its main entry exports no contractVersion (the plugin contract version it was written for, a number; this router supports ${supported})`,
      ),
    );
  if (!SUPPORTED_TRANSPORT_CONTRACT_VERSIONS.includes(module.contractVersion as number))
    fail(
      say(
        `it was written for plugin contract version ${module.contractVersion}, and this router supports ${supported}`,
      ),
    );
  if (!isStandardSchema(module.optionsSchema))
    fail(say("its main entry exports no optionsSchema (a Standard Schema, e.g. a zod 4 schema)"));
  const schema = module.optionsSchema as StandardSchemaV1;
  let validated: StandardSchemaV1.Result<unknown>;
  try {
    validated = await schema["~standard"].validate(plugin.options ?? {});
  } catch (error) {
    return fail(say(`its optionsSchema threw: ${firstLine(error)}`));
  }
  if (validated.issues) fail(say(`its options do not fit its schema: ${describeIssues(validated.issues)}`));
  const context: TransportPluginContext = {
    ...loading.context,
    protocol,
    logger: loading.loggerFor(protocol, packageName),
  };
  let transport: unknown;
  try {
    transport = await (module.default as (options: unknown, context: TransportPluginContext) => unknown)(
      validated.value,
      context,
    );
  } catch (error) {
    return fail(say(`its factory threw: ${firstLine(error)}`));
  }
  if (!isTransport(transport))
    fail(
      say(
        "its factory returned no transport (an object with callTool, readResource, executeCode, provision, probeHealth and close)",
      ),
    );
  return transport;
}

/**
 * Loads every configured transport plugin, in the order configured, and returns their transports by protocol. A
 * package is looked for in `transportPluginDirectory`'s `node_modules`, then from the router's own files upwards
 * (a globally installed router finds the packages installed globally beside it).
 *
 * @throws TransportPluginError (one sentence naming the package and the problem) when a package is missing, its
 * import throws, it does not have the contract's shape or version, its options do not fit its `optionsSchema`, or
 * its factory throws; the transports already made are closed first.
 */
export async function loadTransportPlugins(
  loading: TransportPluginLoading,
): Promise<Record<string, BridgeTransport>> {
  const entries = Object.entries(loading.transports);
  if (entries.length === 0) return {};
  // Loaded only when a plugin is configured: most routers have none.
  const { moduleResolve } = await import("import-meta-resolve");
  const places = searchPlaces(loading);
  const loaded: Record<string, BridgeTransport> = {};
  try {
    for (const [protocol, plugin] of entries)
      loaded[protocol] = await loadOne(protocol, plugin, places, loading, moduleResolve);
    return loaded;
  } catch (error) {
    await closeTransportPlugins(loaded);
    throw error;
  }
}

/** Closes each plugin's transport; one that fails to close does not keep the others open. */
export async function closeTransportPlugins(transports: Record<string, BridgeTransport>): Promise<void> {
  await Promise.allSettled(Object.values(transports).map((t) => t.close()));
}

/**
 * Loads the plugins `config` names with the router's context: its deadlines, per-service timeouts, TLS, and a
 * child of `logger` per plugin. See {@link loadTransportPlugins}.
 * @throws TransportPluginError as it does.
 */
export function loadConfiguredTransportPlugins(
  config: RouterConfig,
  logger: Logger,
): Promise<Record<string, BridgeTransport>> {
  const tls = routerTls(config);
  return loadTransportPlugins({
    transports: config.transports,
    pluginDirectory: config.transportPluginDirectory,
    context: {
      unaryTimeoutMs: config.unaryTimeoutMs,
      streamTimeoutMs: config.streamTimeoutMs,
      timeouts: serviceTimeouts(config),
      ...(tls ? { tls } : {}),
    },
    loggerFor: (protocol, packageName) =>
      logger.child({ component: "transport-plugin", protocol, package: packageName }),
  });
}
