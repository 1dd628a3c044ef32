import { resolve } from "node:path";
import type { Logger } from "pino";
import type { RouterConfig } from "../config.js";

/**
 * How the forwards' sandbox is made (the options of `@trestle/transport-mcp`'s `createStdioSandbox`, which the
 * composition root calls with them).
 */
export interface ForwardSandboxOptions {
  /** Absolute; absent for a temporary directory removed when the router stops. */
  homesDirectory?: string;
  /** Absolute paths of the router's own files: its data directory, configuration, key and secret files. */
  hiddenPaths: string[];
  onUnconfinedStart(event: { key: string; upstream: string }): void;
}

/**
 * The options of the forwards' sandbox: homes in `forwardHomesDir`, else `.trestle/forwards`, else (an in-memory
 * router, which keeps nothing) a temporary directory; hidden, the data directory, the TLS files and `privatePaths`
 * (the configuration file and the files secrets are read from); each start of a forward that opted out of the
 * sandbox (`sandbox: false`) logged as a warning.
 */
export function forwardSandboxOptions(
  config: Pick<
    RouterConfig,
    "forwardHomesDir" | "memoryStore" | "dataDir" | "tlsCaFile" | "tlsCertFile" | "tlsKeyFile"
  >,
  privatePaths: readonly string[],
  logger: Logger,
): ForwardSandboxOptions {
  const homes = config.forwardHomesDir ?? (config.memoryStore ? undefined : ".trestle/forwards");
  const hidden = [config.dataDir, config.tlsCaFile, config.tlsCertFile, config.tlsKeyFile, ...privatePaths];
  return {
    ...(homes === undefined ? {} : { homesDirectory: resolve(homes) }),
    hiddenPaths: hidden.filter((p): p is string => p !== undefined && p !== "").map((p) => resolve(p)),
    onUnconfinedStart: ({ key, upstream }) =>
      logger.warn(
        { service: key, upstream },
        "a forward's server starts unconfined (sandbox: false): it can read the router's environment, files and processes",
      ),
  };
}

/** The forwards' one sandbox, shared by the MCP transport's calls and the catalog watches. */
export interface LazyForwardSandbox<S> {
  /** The sandbox, made at the first call (with the MCP client stack, which loads when a forward first needs it). */
  get(): Promise<S>;
  /** Removes its temporary homes, if it made any. */
  dispose(): void;
}

/** Makes the sandbox with `make` when a forward first needs it, once. */
export function lazyForwardSandbox<S extends { dispose(): void }>(
  make: () => Promise<S>,
): LazyForwardSandbox<S> {
  let made: Promise<S> | undefined;
  let sandbox: S | undefined;
  return {
    get() {
      made ??= make().then((value) => {
        sandbox = value;
        return value;
      });
      return made;
    },
    dispose() {
      sandbox?.dispose();
    },
  };
}
