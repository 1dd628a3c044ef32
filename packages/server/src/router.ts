import type { EventHub } from "@trestle/bridge";
import { type BridgeTransport, Code, TrestleError } from "@trestle/core";
import type { Registry } from "@trestle/registry";
import type { Logger } from "pino";
import { lazyA2aEndpoint } from "./a2a/lazy-a2a-endpoint.js";
import { createCodeModeRuns } from "./calls/code-mode-runs.js";
import { dividedRateLimit, effectiveRateLimit, type RouterConfig } from "./config.js";
import { requiresCredentials } from "./config-identity.js";
import type { ForwardService } from "./forwards/forward-service.js";
import { createAdminUi } from "./http/admin-ui.js";
import { createCodeModeEndpoint } from "./http/code-mode-endpoint.js";
import { createHttpApp } from "./http/http-app.js";
import { createPrincipalBudget } from "./http/principal-budget.js";
import { createRateLimiter } from "./http/rate-limit.js";
import {
  type AccessToken,
  checkListenAddress,
  createOriginGuard,
  createTokenAuthenticator,
} from "./http/security.js";
import type { McpDispatcherOptions } from "./mcp/mcp-dispatcher.js";
import type { McpEndpoint } from "./mcp/mcp-endpoint.js";
import type { McpBackend, McpSettings } from "./mcp/namespace-server.js";
import { revisionNotes } from "./mcp/revision-notes.js";
import { openAuditModule } from "./root/audit.js";
import { createCallsModule } from "./root/calls.js";
import { createCloserStack } from "./root/closers.js";
import { listenForCodeMode } from "./root/code-mode-listener.js";
import { createForwardDirectoryModule, createForwardsModule } from "./root/forwards.js";
import { listenHttp } from "./root/http-listener.js";
import { createIdentityModule } from "./root/identity.js";
import { createRouterLogger } from "./root/logger.js";
import { createManagementModule } from "./root/management.js";
import { createMcpModule } from "./root/mcp.js";
import { routerSecurity } from "./root/router-security.js";
import { openStoreModule } from "./root/store.js";
import { createTelemetryModule } from "./root/telemetry.js";
import { closeTransportPlugins, loadConfiguredTransportPlugins } from "./root/transport-plugins.js";
import { createTransportsModule } from "./root/transports.js";
import { SERVER_VERSION } from "./version.js";

/** A running router. */
export interface Router {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  readonly registry: Registry;
  readonly events: EventHub;
  readonly mcp: McpEndpoint;
  /** Forwarded MCP servers. */
  readonly forwards: ForwardService;
  /** The MCP backend, for serving MCP over stdio. */
  readonly backend: McpBackend;
  /** The MCP settings the HTTP endpoint serves with (the stdio front serves with the same). */
  readonly mcpSettings: Omit<McpSettings, "listChangedDelivered">;
  /** Observes each MCP request as the HTTP front does (spans, durations), for the stdio front; absent when off. */
  readonly observeMcp?: McpDispatcherOptions["observe"];
  readonly logger: Logger;
  /**
   * Refuses new requests (`/readyz` answers 503, the listener closes) and waits for in-flight MCP requests to
   * finish, up to `drainTimeoutMs`. Capabilities stay reachable meanwhile. Idempotent; `close` drains first.
   */
  drain(): Promise<void>;
  /**
   * Stops: drains (see {@link Router.drain}), then closes streams, transports, the registry and the store.
   * Idempotent.
   */
  close(): Promise<void>;
}

/** Collaborators a caller may supply instead of the defaults (tests, embedding). */
export interface RouterOverrides {
  logger?: Logger;
  /** Extra or replacement transports by protocol name. */
  transports?: Record<string, BridgeTransport>;
  /** Do not listen on HTTP (stdio only). */
  noHttp?: boolean;
  /**
   * Tokens the process made for itself (the built-in services' register-only credential): accepted like
   * configured tokens, but they do not close the router's scopes. Never logged.
   */
  internalTokens?: readonly AccessToken[];
  /**
   * Call secrets of the built-in services this process starts, by the service name each registers under
   * (`http`, `file`, the exec engine's name, `trestle` by default): sent as `x-trestle-capability-secret` only
   * to instances of that name on a loopback address. Generate them per start and hand each built-in its own in
   * `TRESTLE_CAPABILITY_SECRET`.
   */
  builtinSecrets?: Record<string, string>;
  /**
   * This process's number among the workers of `trestle serve --workers N`: every HTTP response then names it in
   * a `trestle-worker` header (which worker answered, for operators and tests).
   */
  workerId?: number;
  /** Files of the router's own no forward may see (its configuration file, the files its secrets come from). */
  privatePaths?: readonly string[];
}

/**
 * The composition root: a list of modules, each built from the configuration and the modules before it, each
 * closing on a stack torn down in reverse — the forwards' directory and the transports (what services speak), the
 * store and the registry on it, the forwards at work, the call path and its service, the fronts (MCP, A2A, the
 * management API) and the HTTP front door.
 */
export async function createRouter(config: RouterConfig, overrides: RouterOverrides = {}): Promise<Router> {
  const logger = overrides.logger ?? (await createRouterLogger(config));
  // Before anything opens: without tokens every scope is open, so only loopback, unless told otherwise.
  const listen = checkListenAddress({
    host: config.host,
    tokenCount: requiresCredentials(config) ? Math.max(1, config.tokens.length) : 0,
    insecureOpen: config.insecureOpen,
  });
  if (!overrides.noHttp && !listen.ok) throw new TrestleError(listen.message, Code.FailedPrecondition);
  const closers = createCloserStack((name, error) =>
    logger.warn({ err: TrestleError.from(error).rawMessage, module: name }, "closing a module failed"),
  );
  closers.push("logger", () => {
    logger.info("router stopped");
    logger.flush?.();
  });
  try {
    // Who may register what where decides which instances get a call secret and which the prober may reach.
    const security = routerSecurity(config, overrides.builtinSecrets ?? {});
    const identity = await createIdentityModule(config);
    const telemetry = createTelemetryModule(
      config,
      (overrides.internalTokens ?? []).map((t) => t.name),
    );
    // Who a request is from: static tokens, and OAuth access tokens when issuers are configured.
    const auth = createTokenAuthenticator(
      config.tokens.map((t) =>
        t.rateLimit ? { ...t, rateLimit: dividedRateLimit(t.rateLimit, config.workers) } : t,
      ),
      {
        internalTokens: overrides.internalTokens ?? [],
        ...(identity.resourceServer ? { oauth: identity.resourceServer } : {}),
      },
    );
    const forwardLog = logger.child({ component: "forwards" });
    const forwardDirectory = createForwardDirectoryModule(config, overrides.privatePaths ?? [], forwardLog);
    closers.push("forward sandbox", () => forwardDirectory.sandbox.dispose());
    // The configured transport plugins, before the store opens: a missing or broken one stops the start here.
    const plugins = await loadConfiguredTransportPlugins(config, logger);
    // Closed here until the call path holds them (it closes every transport with the router).
    let pluginsHandedOver = false;
    closers.push("transport plugins", () => (pluginsHandedOver ? undefined : closeTransportPlugins(plugins)));
    const transports = createTransportsModule({
      plugins,
      config,
      secretFor: security.secretFor,
      mayReceiveConfigured: (target) => security.mayReceiveConfigured(target),
      // An upstream's token exchange takes the caller's own access token as its subject.
      bearerOf: (principal) => auth.bearerOf(principal),
      ...(identity.createTokenExchanger ? { createTokenExchanger: identity.createTokenExchanger } : {}),
      forwardDirectory: forwardDirectory.directory,
      forwardSandbox: forwardDirectory.sandbox,
      logger,
      ...(overrides.transports ? { extra: overrides.transports } : {}),
    });
    const { store, state, registry } = await openStoreModule(config, transports, security, logger);
    // The registry leaves the store open (see createRegistry); a throw-away store removes its directory here.
    closers.push("store", () => store.close());
    closers.push("registry", () => registry.close());
    // The policy in force (configured rules, then the API's) and the audit trail: both in the shared store.
    const audit = await openAuditModule(config, { sql: store.sql, catalog: registry.catalog, logger });
    closers.push("audit", () => audit.close());
    const forwards = createForwardsModule(registry.catalog, forwardDirectory, transports, forwardLog);
    closers.push("forwards", () => forwards.supervisor.close());
    // Code mode: the listener's address is known once it listens; runs before then get no tools.
    let listenerUrl: string | undefined;
    const codeModeRuns = createCodeModeRuns({
      enabled: config.codeMode.tools,
      limits: config.codeMode,
      callbackUrl: () => config.codeMode.callbackUrl ?? listenerUrl,
    });
    closers.push("code mode", () => codeModeRuns.close());
    const calls = createCallsModule(config, {
      codeModeRuns,
      registry,
      transports,
      forwardDirectory: forwardDirectory.directory,
      clientCodec: revisionNotes(),
      policy: audit.policy,
      logger,
      telemetry: telemetry.interceptors,
    });
    closers.push("transports", () => calls.transports.close());
    pluginsHandedOver = true;
    closers.push("calls", () => calls.close());
    const onStreamDropped = (stream: string) => (bufferedBytes: number) =>
      logger.warn({ stream, bufferedBytes }, "dropped a slow SSE reader: it left too much unread");
    // One limiter for the front door and the MCP endpoint: each message of a batch counts in the same bucket.
    // Each of --workers N counts its own requests: limits per process are the configured ones divided by N.
    const limiter = createRateLimiter({ defaultLimit: effectiveRateLimit(config) });
    const mcp = await createMcpModule(config, {
      calls: { ...calls, calls: audit.forFront(calls.calls, "mcp") },
      state,
      registry,
      forwardDirectory: forwardDirectory.directory,
      limiter,
      onStreamDropped: onStreamDropped("mcp"),
      logger,
      ...(telemetry.observeMcp ? { observe: telemetry.observeMcp } : {}),
    });
    closers.push("mcp", () => mcp.close());
    // A policy change may show or hide entries for some principals: their clients list again.
    const unsubscribePolicy = audit.managedPolicy.onChange(() => {
      for (const kind of ["tools", "resources", "prompts"] as const)
        mcp.endpoint.listChanged(undefined, kind);
    });
    closers.push("policy changes", () => unsubscribePolicy());
    telemetry.watch({
      mcpSessions: () => mcp.endpoint.sessions.size,
      listenStreams: () => mcp.endpoint.listeners.size,
      circuits: () =>
        registry.services.list().map((s) => ({
          service: s.target.serviceName,
          instance: s.id,
          state: registry.resolver.circuitState(s.id),
        })),
    });
    // The A2A front: each namespace's tools as an A2A agent, its tasks in the store (any replica answers them).
    const a2a = lazyA2aEndpoint({
      backend: { calls: audit.forFront(calls.calls, "a2a") },
      tasks: state.a2aTasks,
      maxBodyBytes: config.maxBodyBytes,
      version: SERVER_VERSION,
      requiresToken: requiresCredentials(config),
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      taskRetentionMs: config.a2aTaskRetentionMs,
      maxTasksPerPrincipal: config.maxTasksPerPrincipal,
      ...(config.sessionSecret ? { sealingSecret: config.sessionSecret } : {}),
      sseMaxBufferedBytes: config.sseMaxBufferedBytes,
      onStreamDropped: onStreamDropped("a2a"),
      onError: (error) => logger.error({ err: error }, "an A2A request failed"),
      ...(telemetry.observeA2a ? { observe: telemetry.observeA2a } : {}),
    });
    closers.push("a2a", () => a2a.close());
    const management = createManagementModule(config, {
      registry,
      calls: { ...calls, calls: audit.forFront(calls.calls, "management") },
      forwards,
      security,
      audit,
      builtinServiceNames: Object.keys(overrides.builtinSecrets ?? {}),
      onStreamDropped: (stream, bytes) => onStreamDropped(stream)(bytes),
    });
    closers.push("management", () => management.close());

    const codeModeEndpoint = createCodeModeEndpoint({
      runs: codeModeRuns,
      calls: calls.codeModeCalls,
      maxBodyBytes: config.maxBodyBytes,
    });
    // A worker of several gets a callback port of its own: the shared one may hand a call to another worker.
    const codeModeListener =
      overrides.workerId !== undefined &&
      !overrides.noHttp &&
      config.codeMode.tools &&
      !config.codeMode.callbackUrl
        ? await listenForCodeMode(codeModeEndpoint, (error) =>
            logger.error({ err: error }, "a code-mode callback failed"),
          )
        : undefined;
    if (codeModeListener) closers.push("code mode listener", () => codeModeListener.close());

    let ready = true;
    const app = createHttpApp({
      guard: createOriginGuard({
        allowedHosts: [config.host, ...config.allowedHosts],
        allowedOrigins: config.allowedOrigins,
      }),
      auth,
      protectedResourceMetadata: (path) => identity.protectedResourceMetadata(path),
      adminUi: createAdminUi(),
      limiter,
      openRequests: createPrincipalBudget(
        Math.max(1, Math.ceil(config.maxRequestsPerPrincipal / config.workers)),
      ),
      api: management.api,
      ...(telemetry.endpoint ? { metrics: telemetry.endpoint } : {}),
      mcp: (req, res, namespace, principal) => mcp.endpoint.handle(req, res, namespace, principal),
      a2a: (req, res, namespace, kind, principal) => a2a.handle(req, res, namespace, kind, principal),
      codeMode: codeModeEndpoint,
      hasNamespace: (name) => registry.catalog.getNamespace(name) !== undefined,
      ready: () => ready,
      onError: (error, req) =>
        logger.error({ err: error, method: req.method, path: req.url?.split("?")[0] }, "request failed"),
    });
    const http = await listenHttp(config, app, {
      listen: !overrides.noHttp,
      ...(overrides.workerId === undefined ? {} : { workerId: overrides.workerId }),
      logger,
    });
    closers.push("http", () => http.closeConnections());
    if (!overrides.noHttp) listenerUrl = codeModeListener?.url ?? http.url;
    if (listen.ok && listen.openOnNetwork && !overrides.noHttp) {
      logger.warn(
        { host: config.host, port: http.port },
        "insecure-open: no tokens are configured and the router listens on a network address; every scope (MCP, management API, registration, forwards, code execution) is open to anyone who can reach it",
      );
    }
    logger.info({ url: http.url, store: store.backend, stateless: config.stateless }, "router listening");

    let draining: Promise<void> | undefined;
    const drain = () => {
      draining ??= (async () => {
        ready = false;
        http.stopAccepting();
        const deadline = Date.now() + config.drainTimeoutMs;
        while (mcp.endpoint.inFlight() > 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 25));
      })();
      return draining;
    };
    let closing: Promise<void> | undefined;
    return {
      url: http.url,
      port: http.port,
      registry,
      events: calls.events,
      mcp: mcp.endpoint,
      forwards: forwards.service,
      backend: mcp.backend,
      mcpSettings: mcp.settings,
      ...(telemetry.observeMcp ? { observeMcp: telemetry.observeMcp } : {}),
      logger,
      drain,
      close() {
        closing ??= drain().then(() => closers.closeAll());
        return closing;
      },
    };
  } catch (error) {
    // A module that failed to open: what opened before it closes again, last first.
    await closers.closeAll();
    throw error;
  }
}
