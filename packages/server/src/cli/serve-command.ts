import { randomBytes } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import type { Command } from "commander";
import { builtinCallSecrets } from "../builtin-secrets.js";
import type { BuiltinService } from "../builtin-services.js";
import type { Router } from "../router.js";
import { SERVER_VERSION } from "../version.js";
import { CliError } from "./cli-error.js";
import { collect } from "./command-action.js";
import type { CliIo } from "./context.js";

/** The flags of `trestle serve`, as commander names them. */
export interface ServeOptions {
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  memoryStore?: boolean;
  workers?: string;
  config?: string;
  stateless?: boolean;
  stdio?: boolean;
  namespace?: string;
  builtins?: boolean;
  root?: string[];
  builtinArg?: string[];
  logLevel?: string;
  logFormat?: string;
  insecureOpen?: boolean;
  allowedHost?: string[];
  allowedOrigin?: string[];
  forwardHeader?: string[];
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  transport?: string[];
  transportPluginDir?: string;
}

/** Adds `--builtin-arg http=--allow-private` style arguments to the named built-in services. */
function withExtraArgs(services: BuiltinService[], extra: readonly string[]): BuiltinService[] {
  for (const item of extra) {
    const eq = item.indexOf("=");
    const service = services.find((s) => s.name === item.slice(0, eq));
    if (eq <= 0 || !service) {
      throw new CliError(
        `--builtin-arg needs SERVICE=ARG with SERVICE one of ${services.map((s) => s.name).join(", ")}`,
        2,
      );
    }
    service.args.push(item.slice(eq + 1));
  }
  return services;
}

/** `trestle serve`: runs the router (and, with `--builtins`, the built-in capability services). */
export function addServeCommand(program: Command, io: CliIo): void {
  program
    .command("serve")
    .description("Run the router: MCP at /mcp, the management API at /api")
    .option("--port <n>", "port to listen on (env TRESTLE_PORT)")
    .option("--host <h>", "address to listen on (env TRESTLE_HOST)")
    .option("--data-dir <dir>", "embedded database directory")
    .option("--database-url <url>", "a PostgreSQL server instead of the embedded database")
    .option("--memory-store", "keep the catalog in memory only")
    .option(
      "--workers <n>",
      "router processes sharing the port, each a replica (needs --database-url; env TRESTLE_WORKERS)",
    )
    .option("--config <file>", "a YAML or JSON configuration file")
    .option("--stateless", "no MCP sessions (any replica answers any request)")
    .option("--builtins", "also run the built-in http, file and exec capability services")
    .option(
      "--root <dir>",
      "a directory the built-in file service serves (repeatable; default: here)",
      collect,
    )
    .option("--builtin-arg <service=arg>", "an argument for a built-in service (repeatable)", collect)
    .option("--stdio", "serve MCP on stdin and stdout instead of HTTP")
    .option("-n, --namespace <ns>", "with --stdio: the namespace served")
    .option("--log-level <level>", "trace, debug, info, warn, error")
    .option("--log-format <format>", "auto (pretty on a terminal), pretty, json (env TRESTLE_LOG_FORMAT)")
    .option("--insecure-open", "listen beyond loopback without tokens (env TRESTLE_INSECURE_OPEN=1)")
    .option(
      "--allowed-host <host>",
      "a Host header accepted besides the listen address (repeatable)",
      collect,
    )
    .option("--allowed-origin <origin>", "an Origin accepted from browsers (repeatable)", collect)
    .option(
      "--forward-header <name>",
      "a client header passed on to capability services (repeatable)",
      collect,
    )
    .option("--tls-ca <file>", "CA bundle for TLS to capability services")
    .option("--tls-cert <file>", "client certificate for TLS to capability services")
    .option("--tls-key <file>", "client key for TLS to capability services")
    .option(
      "--transport <protocol=package>",
      "load a transport plugin package for services of that protocol (repeatable; options in the config file or TRESTLE_TRANSPORTS)",
      collect,
    )
    .option(
      "--transport-plugin-dir <dir>",
      "a directory whose node_modules is searched first for transport plugins (env TRESTLE_TRANSPORT_PLUGIN_DIR)",
    )
    .action(async (options: ServeOptions) => serve(options, io));
}

/**
 * The embedded store is PostgreSQL compiled to WebAssembly (9 MB of code). V8 compiles it twice by default, fast
 * (Liftoff) and then optimised (TurboFan) in background threads, and the optimising compiler's memory stays with
 * the process: an idle router on a reopened data directory measured 50–55 MiB more resident than with Liftoff
 * alone. The store is never on the hot path (calls read the in-memory view), so its queries need no optimised
 * code. Must run before PGlite compiles its module; it applies to every WebAssembly module of this process. Node 24
 * reads the flag only when V8 starts (set here, its start still peaked at 710–740 MiB): `ROUTER_NODE_FLAGS`
 * (`@trestle/server/launch`) gives it on node's command line, as `pnpm start` and the container do; this covers a
 * `trestle serve` started without them on Node 20.
 */
function compileWasmForFootprint(): void {
  setFlagsFromString("--liftoff-only");
}

/**
 * V8 allocates the objects of an allocation site (an object or array literal) straight in the old generation once
 * most of them have survived a young collection ("pretenuring"). In a router that decision feeds itself: a site
 * tips while calls' objects happen to survive (the event history keeps the last calls, and warm-up), its objects
 * then hold their call's young objects from the old generation, where a young collection cannot see them die, so
 * the whole call survives and more sites tip. Measured at c16 (docs/performance.md, ninth pass): 9 KB of every
 * call survived young collections with it and 4 KB without; scavenge pauses 43 → 22 µs a call. The router's
 * objects live for a call; the few long-lived ones it makes at start reach the old generation after two young
 * collections anyway. Must run before the router allocates.
 */
function collectCallsYoung(): void {
  setFlagsFromString("--no-allocation-site-pretenuring");
}

/** Removes the stopped built-ins' registrations (ids the router may already have dropped are skipped). */
async function deregisterBuiltins(
  router: Pick<Router, "registry" | "logger">,
  ids: readonly string[],
): Promise<void> {
  for (const id of ids) {
    await router.registry.services
      .deregister(id)
      .catch((error: unknown) =>
        router.logger.debug({ err: error, id }, "built-in service already deregistered"),
      );
  }
}

async function serve(values: ServeOptions, io: CliIo): Promise<void> {
  collectCallsYoung();
  // The process is the router's: its Node internals tuned (@trestle/server/runtime), before the first full
  // collections (loading the router runs several) and before any node:http2 request binds an AsyncResource.
  const { tuneProcessForRouter } = await import("../runtime/index.js");
  const tuning = tuneProcessForRouter();
  // Loaded here, not at the top: client commands should start fast and never load the router.
  const [
    { BUILTIN_PRINCIPAL, readConfigFile, resolveRouterConfig },
    { createRouter },
    { defaultBuiltins, startBuiltinServices },
    { serveStdio },
  ] = await Promise.all([
    import("../config.js"),
    import("../router.js"),
    import("../builtin-services.js"),
    import("../mcp/stdio-server.js"),
  ]);
  const list = (v: string[] | undefined) => (v && v.length > 0 ? v.join(",") : undefined);
  const { parseTransportFlags } = await import("../config-transports.js");
  let transportFlags: Record<string, string> | undefined;
  try {
    transportFlags = values.transport?.length ? parseTransportFlags(values.transport) : undefined;
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  const config = await resolveRouterConfig({
    ...(values.config ? { file: readConfigFile(values.config) } : {}),
    env: io.env,
    flags: {
      host: values.host,
      port: values.port,
      dataDir: values.dataDir,
      databaseUrl: values.databaseUrl,
      memoryStore: values.memoryStore,
      workers: values.workers,
      stateless: values.stateless,
      logLevel: values.logLevel,
      logFormat: values.logFormat,
      insecureOpen: values.insecureOpen,
      allowedHosts: list(values.allowedHost),
      allowedOrigins: list(values.allowedOrigin),
      forwardHeaders: list(values.forwardHeader),
      tlsCaFile: values.tlsCa,
      tlsCertFile: values.tlsCert,
      tlsKeyFile: values.tlsKey,
      transports: transportFlags,
      transportPluginDirectory: values.transportPluginDir,
    },
  });
  // Read: the secrets leave the environment before any child starts (the router's workers get theirs back).
  const { takeSecretVariables, ROUTER_SECRET_VARIABLES } = await import("../router-secrets.js");
  const secretFiles = ROUTER_SECRET_VARIABLES.filter((name) => name.endsWith("_FILE"))
    .map((name) => io.env[name])
    .filter((path): path is string => path !== undefined && path !== "");
  const secretVariables = takeSecretVariables(process.env);
  const workers = await import("./workers.js");
  workers.checkWorkers({ config, builtins: values.builtins === true, stdio: values.stdio === true });
  // A taken port is told in one sentence before anything opens the data directory or starts a child.
  if (!workers.isWorker()) await (await import("./port-check.js")).assertPortFree(config.host, config.port);
  const plugins = await import("../root/transport-plugins.js");
  if (config.workers > 1 && !workers.isWorker()) {
    // Each worker loads the plugins again; one unfit must stop the start here, not fail every worker in turn.
    const { createRouterLogger } = await import("../root/logger.js");
    await plugins
      .loadConfiguredTransportPlugins(config, await createRouterLogger(config))
      .then(plugins.closeTransportPlugins, (error: unknown) => {
        throw error instanceof plugins.TransportPluginError ? new CliError(error.rawMessage, 1) : error;
      });
    const code = await workers.runWorkers({
      count: config.workers,
      env: secretVariables,
      ...(config.sessionSecret ? { sessionSecret: config.sessionSecret } : {}),
      write: (line) => io.stderr.write(`${line}\n`),
      onListening: (port) => {
        const host = config.host.includes(":") ? `[${config.host}]` : config.host;
        const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
        io.stderr.write(
          `\nTrestle ${SERVER_VERSION} is serving MCP at ${url}/mcp with ${config.workers} workers (management API at ${url}/api/v1)\n`,
        );
      },
    });
    process.exit(code);
  }
  const workerId = workers.workerId();
  // The built-ins' own credential, made for this start and held by no one else: register-only, so neither they
  // nor the programs they run could act as an operator. It does not close an open router's scopes.
  const builtinToken = values.builtins ? randomBytes(32).toString("base64url") : undefined;
  // Each built-in's own call secret for this start: its port then answers the router and nothing else.
  const builtinServices = values.builtins
    ? builtinCallSecrets(
        withExtraArgs(
          defaultBuiltins({ fileRoots: values.root ?? [process.cwd()] }),
          // The file service never serves the router's data directory, nor the secrets key beside it (the store's
          // own `<dataDir>.key`) or configured (relative paths: same working directory).
          [
            ...(values.builtinArg ?? []),
            `file=--exclude=${config.dataDir}`,
            `file=--exclude=${config.dataDir}.key`,
            ...(config.secretsKeyFile ? [`file=--exclude=${config.secretsKeyFile}`] : []),
          ],
        ),
      )
    : undefined;
  if (!config.databaseUrl) compileWasmForFootprint();
  // Before the router: it adds spans to its call path only when an SDK is registered as it starts.
  const telemetry = await (await import("./otel-sdk.js")).startTelemetry(io.env);
  const { StartError } = await import("../root/start-error.js");
  const router = await createRouter(config, {
    // Files of the router's own that no forward may see, even inside a directory it is shown.
    privatePaths: [...(values.config ? [values.config] : []), ...secretFiles],
    ...(builtinToken
      ? { internalTokens: [{ name: BUILTIN_PRINCIPAL, token: builtinToken, scopes: ["register"] as const }] }
      : {}),
    ...(builtinServices ? { builtinSecrets: builtinServices.byServiceName } : {}),
    ...(workerId === undefined ? {} : { workerId }),
  }).catch(async (error: unknown) => {
    // A setting the router cannot start with (a plugin that cannot be loaded, a protocol no transport speaks) is
    // the operator's to fix: its one sentence, no stack.
    if (!(error instanceof StartError)) throw error;
    await telemetry?.shutdown().catch(() => undefined);
    tuning.release();
    throw new CliError(error.rawMessage, 1);
  });
  const builtins = builtinServices
    ? startBuiltinServices(builtinServices.services, {
        routerUrl: router.url,
        ...(builtinToken ? { token: builtinToken } : {}),
        logger: router.logger,
      })
    : undefined;

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // In-flight calls finish first, the built-in services behind them still running; then they stop.
    await router.drain();
    // Deregistered before they stop, by the router itself (their own deregistration would meet the closed
    // listener): no health probe finds them down while they stop, and the next start finds none of them stored.
    if (builtins) await deregisterBuiltins(router, builtins.registeredIds());
    await builtins?.stop();
    await router.close();
    // The last spans leave before the process does.
    await telemetry?.shutdown().catch(() => undefined);
    tuning.release();
    process.exit(code);
  };
  process.once("SIGTERM", () => void stop(0));
  process.once("SIGINT", () => void stop(0));
  // Unhandled rejections are logged and serving goes on; an uncaught exception stops the router (see why there).
  const { installProcessSafetyNet } = await import("../process-safety.js");
  installProcessSafetyNet({ logger: router.logger, stop, exitDeadlineMs: config.drainTimeoutMs + 5_000 });

  if (values.stdio) {
    await builtins?.ready.catch((error: Error) =>
      router.logger.error({ err: error }, "a built-in service failed"),
    );
    await serveStdio(
      values.namespace ?? "",
      router.backend,
      // No HTTP request headers to forward over stdio.
      { ...router.mcpSettings, forwardHeaders: [] },
      router.registry,
      router.observeMcp ? { observe: router.observeMcp } : {},
    );
    await stop(0);
    return;
  }
  if (builtins) {
    try {
      await builtins.ready;
    } catch (error) {
      router.logger.error({ err: error }, "a built-in service failed to start");
    }
  }
  // A worker's primary prints the one banner for them all.
  if (workerId !== undefined) return;
  io.stderr.write(
    `\nTrestle ${SERVER_VERSION} is serving MCP at ${router.url}/mcp (management API at ${router.url}/api/v1)\n` +
      `Connect a client:  claude mcp add --transport http trestle ${router.url}/mcp\n` +
      `Or print a client configuration:  trestle config claude\n\n`,
  );
}
