import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ConcurrencyLimit,
  callEvents,
  concurrencyLimit,
  createCodeExecutionBridge,
  createEventHub,
  createInvokerBridge,
  createResourceBridge,
  type EventHub,
  interceptTransports,
  outcomeFeedback,
  scrubSecrets,
} from "@trestle/bridge";
import {
  type BridgeTransport,
  Code,
  type PromptResult,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import { redactToolCallEvent } from "@trestle/core/redaction";
import { createTransportSelector, type TransportSelector } from "@trestle/core/routing";
import { createRegistry, openStore, type Registry } from "@trestle/registry";
import { a2aSkillUri } from "@trestle/transport-a2a/skill-uri";
import { createGrpcTransport } from "@trestle/transport-grpc";
// The MCP client stack is loaded when the first forward needs it (lazyTransport, watch); the URI helper is small.
import type { McpUpstream } from "@trestle/transport-mcp";
import { mcpToolUri } from "@trestle/transport-mcp/tool-uri";
import { CAPABILITY_SECRET_METADATA_KEY, describeWanakuToolCall } from "@trestle/wanaku";
import { type Logger, pino } from "pino";
import { lazyA2aEndpoint } from "./a2a/lazy-a2a-endpoint.js";
import { createCallService } from "./calls/call-service.js";
import type { EngineLanguage } from "./calls/catalog-view.js";
import { capabilitySecretResolver, withCapabilitySecrets } from "./capability-secrets.js";
import {
  BUILTIN_PRINCIPAL,
  DEFAULT_MAX_QUEUED_CALLS,
  dividedRateLimit,
  effectiveRateLimit,
  type RouterConfig,
} from "./config.js";
import { forwardSandboxOptions, lazyForwardSandbox } from "./forward-sandbox.js";
import { combinedUpstreamConnector } from "./forwards/a2a-connector.js";
import { createForwardDirectory } from "./forwards/forward-directory.js";
import { A2A_PROTOCOL, MCP_PROTOCOL } from "./forwards/forward-identity.js";
import { resolveForwardsFirst } from "./forwards/forward-resolver.js";
import { createForwardService, type ForwardService } from "./forwards/forward-service.js";
import { createForwardSupervisor } from "./forwards/forward-supervisor.js";
import { createHttpApp } from "./http/http-app.js";
import { createJsonApi } from "./http/json-api.js";
import { createPrincipalBudget } from "./http/principal-budget.js";
import { createRateLimiter } from "./http/rate-limit.js";
import {
  type AccessToken,
  checkListenAddress,
  createOriginGuard,
  createTokenAuthenticator,
} from "./http/security.js";
import { lazyTransport } from "./lazy-transport.js";
import { registerCatalogRoutes } from "./management/catalog-routes.js";
import { registerCodeExecutionRoutes } from "./management/code-execution-routes.js";
import { registerDiscoveryRoutes } from "./management/discovery-routes.js";
import { MANAGEMENT_API_INFO, registerDocumentRoute } from "./management/document-route.js";
import { registerEventRoutes } from "./management/event-routes.js";
import { registerForwardRoutes } from "./management/forward-routes.js";
import { followEndedSessions, storeLedger } from "./mcp/ended-sessions.js";
import { createMcpEndpoint, type ListKind, type McpEndpoint } from "./mcp/mcp-endpoint.js";
import type { McpBackend, McpSettings } from "./mcp/namespace-server.js";
import { parseAcceptedRevisions } from "./mcp/protocol-era.js";
import { revisionCodec } from "./mcp/result-encoding.js";
import { createTaskRunner } from "./mcp/tasks.js";
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

const LIST_KIND: Partial<Record<string, ListKind>> = {
  tool: "tools",
  resource: "resources",
  prompt: "prompts",
};

function readPem(path: string | undefined): Buffer | undefined {
  return path ? readFileSync(path) : undefined;
}

/**
 * The composition root: opens the store, builds the transports, registry, bridges, event hub, MCP endpoint and
 * management API, wires them by constructor injection, and listens.
 */
export async function createRouter(config: RouterConfig, overrides: RouterOverrides = {}): Promise<Router> {
  const logger =
    overrides.logger ??
    pino({ level: config.logLevel, base: { service: "trestle" } }, pino.destination({ fd: 2, sync: false }));
  // Before anything opens: without tokens every scope is open, so only loopback, unless told otherwise.
  const listen = checkListenAddress({
    host: config.host,
    tokenCount: config.tokens.length,
    insecureOpen: config.insecureOpen,
  });
  if (!overrides.noHttp && !listen.ok) throw new TrestleError(listen.message, Code.FailedPrecondition);

  const tls = {
    ...(config.tlsCaFile ? { ca: readPem(config.tlsCaFile) as Buffer } : {}),
    ...(config.tlsCertFile ? { cert: readPem(config.tlsCertFile) as Buffer } : {}),
    ...(config.tlsKeyFile ? { key: readPem(config.tlsKeyFile) as Buffer } : {}),
  };
  const useTls = Object.keys(tls).length > 0;
  const timeouts = (target: ServiceTarget) => {
    const s = config.services[target.serviceName];
    return s
      ? {
          ...(s.unaryTimeoutMs ? { unaryMs: s.unaryTimeoutMs } : {}),
          ...(s.streamTimeoutMs ? { streamMs: s.streamTimeoutMs } : {}),
        }
      : undefined;
  };
  // Each capability gets only its own call secret, added below the bridge so no event or log ever holds it.
  const configuredSecrets: Record<string, string> = {};
  for (const [name, service] of Object.entries(config.services)) {
    if (service.callSecret !== undefined) configuredSecrets[name] = service.callSecret;
  }
  const secretFor = capabilitySecretResolver({
    configured: configuredSecrets,
    builtin: overrides.builtinSecrets ?? {},
  });
  const forwardSandbox = lazyForwardSandbox(async () =>
    (await import("@trestle/transport-mcp")).createStdioSandbox(
      forwardSandboxOptions(config, overrides.privatePaths ?? [], logger.child({ component: "forwards" })),
    ),
  );
  const forwardDirectory = createForwardDirectory({
    startTimeoutMs: config.forwardStartTimeoutMs,
    handshakeTimeoutMs: config.forwardHandshakeTimeoutMs,
  });
  const byProtocol: Record<string, BridgeTransport> = {
    grpc: withCapabilitySecrets(
      createGrpcTransport({
        unaryTimeoutMs: config.unaryTimeoutMs,
        streamTimeoutMs: config.streamTimeoutMs,
        timeouts,
        ...(useTls ? { tls } : {}),
        // The transport falls back to the target's own dialect.
        dialectFor: (target) => config.services[target.serviceName]?.dialect,
      }),
      secretFor,
      CAPABILITY_SECRET_METADATA_KEY,
    ),
    connect: withCapabilitySecrets(
      // Loaded when a service that speaks Connect is first called: most routers have none.
      lazyTransport(
        async () =>
          (await import("@trestle/transport-connect")).createConnectTransport({
            unaryTimeoutMs: config.unaryTimeoutMs,
            streamTimeoutMs: config.streamTimeoutMs,
            timeouts,
            ...(useTls ? { tls } : {}),
          }),
        // Connect carries Wanaku's messages: until it is loaded, its calls are described by Wanaku's rules.
        { describeToolCall: (call) => describeWanakuToolCall(call) },
      ),
      secretFor,
      CAPABILITY_SECRET_METADATA_KEY,
    ),
    // Forwards: existing MCP servers, found in the forward directory (filled once the catalog is open).
    [MCP_PROTOCOL]: lazyTransport(async () =>
      (await import("@trestle/transport-mcp")).createMcpTransport({
        // The MCP transport sees the MCP forwards only; A2A agents are the A2A transport's.
        directory: {
          upstreamFor: (target) => {
            const upstream = forwardDirectory.upstreamFor(target);
            return upstream?.kind === "a2a" ? undefined : upstream;
          },
          handshakeTimeoutFor: (target) => forwardDirectory.handshakeTimeoutFor(target),
          upstreamPromptName: (target, name) => forwardDirectory.upstreamPromptName(target, name),
        },
        unaryTimeoutMs: config.unaryTimeoutMs,
        timeouts,
        sandbox: await forwardSandbox.get(),
        perCallLimit: { maxProcesses: config.forwardMaxPerCallProcesses },
        clientInfo: { name: "trestle", version: SERVER_VERSION },
        // A 2026-07-28 upstream is told what the router's client can answer, no more.
        clientCapabilities: (callOptions) => callOptions?.inputCapabilities,
        // An upstream's messages are not tied to a call; their data may quote anything, so only their level shows.
        onLog: ({ target, upstream, message }) =>
          logger.debug(
            { service: target.serviceName, upstream, level: message.level },
            "forwarded server logged",
          ),
      }),
    ),
    // A2A forwards: agents whose skills are imported as tools, found in the same directory.
    [A2A_PROTOCOL]: lazyTransport(async () =>
      (await import("@trestle/transport-a2a")).createA2aTransport({
        directory: {
          agentFor: (target) => {
            const upstream = forwardDirectory.upstreamFor(target);
            return upstream?.kind === "a2a"
              ? { url: upstream.url, ...(upstream.headers ? { headers: upstream.headers } : {}) }
              : undefined;
          },
        },
      }),
    ),
    ...overrides.transports,
  };
  const byServiceName: Record<string, BridgeTransport> = {};
  for (const [name, service] of Object.entries(config.services)) {
    if (!service.protocol) continue;
    const transport = byProtocol[service.protocol];
    if (!transport) throw new Error(`services.${name}.protocol: no transport named '${service.protocol}'`);
    byServiceName[name] = transport;
  }
  // Per-service concurrency limits hold calls before they reach a transport; health probes pass through.
  const limits = new Map<string, ConcurrencyLimit>();
  for (const [name, service] of Object.entries(config.services)) {
    if (service.maxConcurrentCalls === undefined) continue;
    limits.set(name, {
      maxConcurrentCalls: service.maxConcurrentCalls,
      maxQueuedCalls: service.maxQueuedCalls ?? DEFAULT_MAX_QUEUED_CALLS,
      unaryTimeoutMs: service.unaryTimeoutMs ?? config.unaryTimeoutMs,
      streamTimeoutMs: service.streamTimeoutMs ?? config.streamTimeoutMs,
    });
  }
  // What the registry probes through; the bridges call through the same transports with the interceptors below.
  const probing: TransportSelector = createTransportSelector({ byProtocol, byServiceName });

  const store = await openStore({
    ...(config.databaseUrl
      ? { databaseUrl: config.databaseUrl }
      : config.memoryStore
        ? { memory: true }
        : { dataDir: config.dataDir }),
  });
  const registry = await createRegistry({
    store,
    transports: probing,
    probeIntervalMs: config.probeIntervalMs,
    registrationGraceMs: config.registrationGraceMs,
    heartbeatTimeoutMs: config.heartbeatTimeoutMs,
    failureThreshold: config.circuitFailureThreshold,
    circuitCooldownMs: config.circuitOpenMs,
    maxInstancesPerService: config.maxInstancesPerService,
    logger: logger.child({ component: "registry" }),
  });
  await registry.start();

  const forwardSupervisor = createForwardSupervisor({
    catalog: registry.catalog,
    directory: forwardDirectory,
    logger: logger.child({ component: "forwards" }),
    catalogTimeoutMs: 30_000,
    // The forwards module names no transport: the MCP transport's watch and tool addressing are handed in here.
    upstreams: combinedUpstreamConnector(
      {
        // Only MCP upstreams come here: the combined connector hands A2A agents to their reader.
        watch: async (upstream, options) =>
          (await import("@trestle/transport-mcp")).watchUpstreamCatalog(upstream as McpUpstream, {
            ...options,
            sandbox: await forwardSandbox.get(),
            sandboxKey: options.service,
          }),
        toolUri: mcpToolUri,
      },
      {
        readAgentCatalog: async (agent, options) =>
          (await import("@trestle/transport-a2a")).readAgentCatalog(agent, options),
        skillUri: a2aSkillUri,
      },
    ),
    onReleased: (target) => byProtocol[target.protocol ?? MCP_PROTOCOL]?.release?.(target),
  });
  const forwards = createForwardService({
    catalog: registry.catalog,
    directory: forwardDirectory,
    supervisor: forwardSupervisor,
  });
  forwardSupervisor.start();

  const events = createEventHub({
    historySize: config.eventHistorySize,
    historyMaxBytes: config.eventHistoryMaxBytes,
    eventMaxBytes: config.eventMaxBytes,
  });
  // Forwards answer their own service names; the registry resolves the rest and says why one is unavailable.
  const resolver = resolveForwardsFirst(forwardDirectory, registry.resolver);
  // Cross-cutting work on every call the bridges make, outermost first: the call is recorded (STARTED, then one
  // terminal event; a call a limit refuses too), a tool result is put into its MCP client's revision, what comes back is scrubbed of the call's secret values before
  // the events see it, the call waits for a slot of its service, then counts as load on the instance and feeds
  // its circuit breaker until it settles. The capability call secret is added innermost, per transport (above).
  const transports = interceptTransports(probing, [
    callEvents({ sink: events }),
    // Inside the recording, so that what a client's revision cannot carry is noted on the call's event.
    revisionCodec(),
    scrubSecrets(),
    concurrencyLimit((target) => limits.get(target.serviceName)),
    outcomeFeedback(registry.resolver),
  ]);
  const bridgeDeps = { resolver, transports, events };
  const invoker = createInvokerBridge(bridgeDeps);
  const resources = createResourceBridge(bridgeDeps);
  const codeExecution = createCodeExecutionBridge(bridgeDeps);

  let engines: EngineLanguage[] = [];
  let canServeResources = false;
  const refreshServices = () => {
    const seen = new Map<string, EngineLanguage>();
    let resourcesServable = false;
    for (const s of registry.services.list()) {
      if (s.health === "down") continue;
      const t = s.target;
      if (t.serviceType === "resource-provider" || t.serviceType === "multi-capability")
        resourcesServable = true;
      if (t.serviceType === "code-execution-engine" && t.serviceSubType && t.languageName) {
        seen.set(`${t.serviceSubType}/${t.languageName}`, {
          engineType: t.serviceSubType,
          language: t.languageName,
        });
      }
    }
    const next = [...seen.values()].sort((a, b) =>
      `${a.engineType}/${a.language}`.localeCompare(`${b.engineType}/${b.language}`),
    );
    const changed = JSON.stringify(next) !== JSON.stringify(engines);
    engines = next;
    canServeResources = resourcesServable;
    return changed;
  };
  refreshServices();

  // The one service every front's calls pass through, with their principal.
  const calls = createCallService({
    catalog: registry.catalog,
    invoker,
    resources,
    codeExecution,
    engines: () => engines,
    codeExecutionToolName: config.codeExecutionToolName,
    // A forward's prompt comes back in the MCP SDK's wire types: MCP's content model, which core's is.
    forwardedPrompts: (prompt, args, options) =>
      forwardDirectory.getPrompt(prompt, args, options) as Promise<PromptResult>,
    maxConcurrentRunsPerPrincipal: config.maxConcurrentRunsPerPrincipal,
  });
  const backend: McpBackend = {
    calls,
    canServeResources: (namespace) =>
      canServeResources || registry.catalog.listResources(namespace).length > 0,
    forwards: forwardDirectory,
    // MCP tasks live in the store: any replica answers tasks/get, and the one running a call takes updates.
    tasks: createTaskRunner({ store, maxTasksPerPrincipal: config.maxTasksPerPrincipal }),
  };
  // One limiter for the front door and the MCP endpoint: each message of a batch counts in the same bucket.
  // Each of --workers N counts its own requests: limits per process are the configured ones divided by N.
  const limiter = createRateLimiter({ defaultLimit: effectiveRateLimit(config) });
  const openRequests = createPrincipalBudget(
    Math.max(1, Math.ceil(config.maxRequestsPerPrincipal / config.workers)),
  );
  const onStreamDropped = (stream: string) => (bufferedBytes: number) =>
    logger.warn({ stream, bufferedBytes }, "dropped a slow SSE reader: it left too much unread");
  const mcpSettings: Omit<McpSettings, "listChangedDelivered"> = {
    maxResourceUriLength: config.maxResourceUriLength,
    serverInfo: { name: "trestle", version: SERVER_VERSION },
    pageSize: config.pageSize,
    forwardHeaders: config.forwardHeaders,
    acceptedRevisions: parseAcceptedRevisions(config.mcpRevisions),
    // With tokens, what one principal may see another may not: no shared cache may keep it.
    caching: {
      listTtlMs: config.listCacheTtlMs,
      cacheScope: config.tokens.length > 0 ? "private" : "public",
    },
    // Replicas that share the session secret accept each other's request states too (a key of its own).
    ...(config.sessionSecret
      ? {
          requestStateKey: createHmac("sha256", config.sessionSecret)
            .update("trestle request state")
            .digest(),
        }
      : {}),
  };
  const mcp = createMcpEndpoint(backend, {
    stateless: config.stateless,
    maxBodyBytes: config.maxBodyBytes,
    maxBatchMessages: config.maxBatchMessages,
    maxStreamsPerSession: config.maxStreamsPerSession,
    maxListenStreamsPerPrincipal: config.maxListenStreamsPerPrincipal,
    listenMaxAgeMs: config.listenMaxAgeMs,
    sseMaxBufferedBytes: config.sseMaxBufferedBytes,
    limiter,
    onStreamDropped: onStreamDropped("mcp"),
    settings: mcpSettings,
    sessions: {
      idleTimeoutMs: config.sessionIdleTimeoutMs,
      maxAgeMs: config.sessionMaxAgeMs,
      maxSessions: config.maxSessions,
      ...(config.sessionSecret ? { secret: Buffer.from(config.sessionSecret) } : {}),
      // A client's DELETE is final on every replica and after a restart: the store keeps the ends.
      ledger: storeLedger(store),
      // A deleted namespace's sessions stay ended, also once a namespace of its name is created again.
      namespaceId: (namespace) => registry.catalog.getNamespace(namespace)?.id,
    },
  });
  // Sessions ended on other replicas are forgotten here as they end (their GET streams close).
  const stopFollowingEndedSessions = config.stateless
    ? async () => undefined
    : await followEndedSessions(store, mcp.sessions, {
        onCatchUpFailed: (error) =>
          logger.warn(
            { err: TrestleError.from(error).rawMessage },
            "could not read the MCP sessions ended while notifications were lost; they end at their next use",
          ),
      });

  // The A2A front: each namespace's tools as an A2A agent, its tasks in the store (any replica answers for them).
  const a2a = lazyA2aEndpoint({
    backend: { calls },
    store,
    maxBodyBytes: config.maxBodyBytes,
    version: SERVER_VERSION,
    requiresToken: config.tokens.length > 0,
    taskRetentionMs: config.a2aTaskRetentionMs,
    maxTasksPerPrincipal: config.maxTasksPerPrincipal,
    ...(config.sessionSecret ? { sealingSecret: config.sessionSecret } : {}),
    sseMaxBufferedBytes: config.sseMaxBufferedBytes,
    onStreamDropped: onStreamDropped("a2a"),
    onError: (error) => logger.error({ err: error }, "an A2A request failed"),
  });

  const unsubscribeCatalog = registry.catalog.onChange((change) => {
    if (change.kind === "namespace") {
      if (change.op === "removed") mcp.dropNamespace(change.namespace);
      return;
    }
    const list = LIST_KIND[change.kind];
    if (list) mcp.listChanged(change.namespace, list);
    // A resource's entry changed or went away: what its subscribers read may have too.
    if (change.kind === "resource" && change.op !== "added")
      mcp.resourceUpdated(change.namespace, change.key);
  });
  const unsubscribeServices = registry.services.onEvent(() => {
    if (refreshServices()) mcp.listChanged(undefined, "tools");
  });
  // Only a debug log wants every event: a subscriber at other levels would cost each call for nothing.
  const unsubscribeEvents = logger.isLevelEnabled("debug")
    ? // The same name-based redaction as the event stream, again: a log outlives a stream and reaches more people.
      events.subscribe((event) => logger.debug({ event: redactToolCallEvent(event) }, "tool call"))
    : { unsubscribe: () => undefined };

  const api = createJsonApi({
    maxBodyBytes: config.maxBodyBytes,
    info: MANAGEMENT_API_INFO,
  });
  registerDiscoveryRoutes(api, {
    registry,
    // The built-ins' names are theirs from the start: a register token cannot claim one before they register.
    reserved: { serviceNames: Object.keys(overrides.builtinSecrets ?? {}), principal: BUILTIN_PRINCIPAL },
  });
  registerCatalogRoutes(api, { registry, invoker, resources });
  registerEventRoutes(api, {
    events,
    registry,
    sseMaxBufferedBytes: config.sseMaxBufferedBytes,
    onSubscriberDropped: (stream, bytes) => onStreamDropped(stream)(bytes),
  });
  registerForwardRoutes(api, { forwards });
  const codeExecutionRoutes = registerCodeExecutionRoutes(api, { calls });
  registerDocumentRoute(api);

  let ready = true;
  const app = createHttpApp({
    guard: createOriginGuard({
      allowedHosts: [config.host, ...config.allowedHosts],
      allowedOrigins: config.allowedOrigins,
    }),
    auth: createTokenAuthenticator(
      config.tokens.map((t) =>
        t.rateLimit ? { ...t, rateLimit: dividedRateLimit(t.rateLimit, config.workers) } : t,
      ),
      { internalTokens: overrides.internalTokens ?? [] },
    ),
    limiter,
    openRequests,
    api,
    mcp: (req, res, namespace, principal) => mcp.handle(req, res, namespace, principal),
    a2a: (req, res, namespace, kind, principal) => a2a.handle(req, res, namespace, kind, principal),
    hasNamespace: (name) => registry.catalog.getNamespace(name) !== undefined,
    ready: () => ready,
    onError: (error, req) =>
      logger.error({ err: error, method: req.method, path: req.url?.split("?")[0] }, "request failed"),
  });

  let http: HttpServer | undefined;
  let port = 0;
  if (!overrides.noHttp) {
    const worker = overrides.workerId === undefined ? undefined : String(overrides.workerId);
    http = createServer(
      { keepAliveTimeout: 65_000, headersTimeout: 30_000, requestTimeout: 60_000 },
      worker === undefined
        ? (req, res) => void app(req, res)
        : (req, res) => {
            res.setHeader("trestle-worker", worker);
            void app(req, res);
          },
    );
    // Connections past the cap are closed as they arrive: each costs a file descriptor and buffers.
    http.maxConnections = config.maxConnections;
    let droppedConnections = 0;
    http.on("drop", () => {
      // The first, then one line per thousand: a flood must not become a flood of logs.
      if (droppedConnections++ % 1000 === 0)
        logger.warn(
          { maxConnections: config.maxConnections, dropped: droppedConnections },
          "connection refused: the router holds as many connections as it may",
        );
    });
    await new Promise<void>((resolve, reject) => {
      http?.once("error", reject);
      http?.listen(config.port, config.host, () => resolve());
    });
    port = (http.address() as AddressInfo).port;
  }
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  if (listen.ok && listen.openOnNetwork && http) {
    logger.warn(
      { host: config.host, port },
      "insecure-open: no tokens are configured and the router listens on a network address; every scope (MCP, management API, registration, forwards, code execution) is open to anyone who can reach it",
    );
  }
  logger.info({ url, store: store.backend, stateless: config.stateless }, "router listening");

  let closing: Promise<void> | undefined;
  let draining: Promise<void> | undefined;
  const drain = () => {
    draining ??= (async () => {
      ready = false;
      http?.close();
      const deadline = Date.now() + config.drainTimeoutMs;
      while (mcp.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    })();
    return draining;
  };
  return {
    url,
    port,
    registry,
    events,
    mcp,
    forwards,
    backend,
    mcpSettings,
    logger,
    drain,
    close() {
      closing ??= (async () => {
        await drain();
        codeExecutionRoutes.close();
        a2a.close();
        unsubscribeCatalog();
        unsubscribeServices();
        unsubscribeEvents.unsubscribe();
        await stopFollowingEndedSessions();
        await mcp.close();
        await backend.tasks?.close();
        http?.closeAllConnections();
        await forwardSupervisor.close();
        await transports.close();
        forwardSandbox.dispose();
        await registry.close();
        // The registry leaves the store open (see createRegistry); a throw-away store removes its directory here.
        await store.close();
        logger.info("router stopped");
        logger.flush?.();
      })();
      return closing;
    },
  };
}
