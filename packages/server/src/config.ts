import { z } from "zod";
import { auditConfigFields, auditConfigSources } from "./config-audit.js";
import { codeModeConfigFields, codeModeConfigSources } from "./config-code-mode.js";
import {
  identityConfigFields,
  identityConfigSources,
  requiresCredentials,
  serviceIdentityFields,
} from "./config-identity.js";
import { securityConfigFields, securityConfigSources, serviceRegistrationFields } from "./config-security.js";
import { telemetryConfigFields, telemetryConfigSources } from "./config-telemetry.js";
import { transportsConfigFields, transportsConfigSources } from "./config-transports.js";
import { MCP_REVISIONS } from "./mcp/protocol-era.js";

// Loading (file, environment, flags) lives in its own module; its entry points are part of this one's API.
export { type ConfigSources, readConfigFile, resolveConfig, resolveRouterConfig } from "./config-loading.js";

const rateLimitSchema = z.strictObject({
  requestsPerSecond: z.number().positive().describe("Requests per second, on average"),
  burst: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Requests that may come at once after a quiet spell (default: requestsPerSecond, at least 1)"),
});

/** The rate limit of a token without its own when tokens are configured and `rateLimit` is not set. */
export const DEFAULT_TOKEN_RATE_LIMIT = { requestsPerSecond: 100, burst: 200 } as const;

const tokenSchema = z.strictObject({
  name: z.string().min(1).describe("A name for logs (never the token)"),
  token: z.string().min(16, "a token must have at least 16 characters").describe("The bearer token"),
  scopes: z
    .array(z.enum(["mcp", "admin", "register"]))
    .min(1)
    .describe("What it allows: mcp, admin, register"),
  namespaces: z.array(z.string()).optional().describe("Namespaces it may use over MCP (all when absent)"),
  rateLimit: rateLimitSchema
    .optional()
    .describe("Requests this token may make (token bucket); the top-level rateLimit when absent"),
});

const serviceSchema = z
  .strictObject({
    protocol: z
      .string()
      .optional()
      .describe(
        "Transport for this service: grpc, connect, or a protocol of transports (overrides the registration)",
      ),
    dialect: z
      .enum(["v1", "legacy"])
      .optional()
      .describe("gRPC wire dialect: v1 or legacy (Wanaku <= 0.0.9)"),
    callSecret: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Secret sent to this service only, as x-trestle-capability-secret metadata (its TRESTLE_CAPABILITY_SECRET), and only to instances its owner (principal, else its first registrant) or an admin registered",
      ),
    ...serviceRegistrationFields,
    ...serviceIdentityFields,
    unaryTimeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Deadline of unary calls to this service"),
    streamTimeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Deadline of code execution streams on this service"),
    maxConcurrentCalls: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Calls to this service (all its instances) that may run at once (default: no limit)"),
    maxQueuedCalls: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        "Calls that may wait for a free slot beyond maxConcurrentCalls (default 100); more fail at once",
      ),
  })
  .refine((service) => service.maxQueuedCalls === undefined || service.maxConcurrentCalls !== undefined, {
    message: "maxQueuedCalls needs maxConcurrentCalls",
    path: ["maxQueuedCalls"],
  });

/**
 * The principal name of the built-in services' register-only credential, made at each start. No configured
 * token may take it, so no operator token can act as the built-ins (or the other way round).
 */
export const BUILTIN_PRINCIPAL = "trestle-builtins";

/** Calls that may wait for a service's free slot when its `maxConcurrentCalls` is set without `maxQueuedCalls`. */
export const DEFAULT_MAX_QUEUED_CALLS = 100;

/**
 * The router's configuration: every key, with its default and meaning. The same schema validates a config file,
 * and `docs/deploy.md`'s reference is generated from it.
 */
export const routerConfigSchema = z.object({
  host: z.string().default("127.0.0.1").describe("Address to listen on"),
  port: z.number().int().min(0).max(65_535).default(8080).describe("Port to listen on (0 = any free port)"),
  dataDir: z.string().default(".trestle/data").describe("Directory of the embedded store (PGlite)"),
  databaseUrl: z.string().optional().describe("PostgreSQL URL; when set, the embedded store is not used"),
  memoryStore: z.boolean().default(false).describe("Keep the embedded store in memory only (tests, demos)"),
  workers: z
    .number()
    .int()
    .min(1)
    .max(256)
    .default(1)
    .describe(
      "Router processes sharing the port (node:cluster), each a replica on the same store; more than 1 needs databaseUrl",
    ),
  stateless: z
    .boolean()
    .default(false)
    .describe("Serve MCP without sessions (no GET stream, no list_changed)"),
  sessionSecret: z
    .string()
    .min(32, "the session secret must have at least 32 characters")
    .optional()
    .describe(
      "Key sealing MCP session ids; replicas sharing it share sessions (default: random per process)",
    ),
  sessionIdleTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(30 * 60_000)
    .describe("Idle sessions are forgotten after this"),
  sessionMaxAgeMs: z
    .number()
    .int()
    .positive()
    .default(24 * 60 * 60_000)
    .describe(
      "Sessions expire this long after they were created, however active (a new initialize is needed)",
    ),
  maxSessions: z.number().int().positive().default(100_000).describe("Most sessions kept in memory"),
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024)
    .describe("Largest request body accepted"),
  allowedHosts: z
    .array(z.string())
    .default([])
    .describe("Host names accepted in the Host header besides loopback ('*' = any)"),
  allowedOrigins: z
    .array(z.string())
    .default([])
    .describe("Browser origins allowed (CORS and Origin checks)"),
  tokens: z
    .array(tokenSchema)
    .default([])
    .refine((tokens) => new Set(tokens.map((t) => t.name)).size === tokens.length, {
      message: "token names must be unique (registrations and sessions are bound to them)",
    })
    .refine((tokens) => !tokens.some((t) => t.name === BUILTIN_PRINCIPAL), {
      message: `the token name '${BUILTIN_PRINCIPAL}' is reserved for the built-in services`,
    })
    .describe(
      "Bearer tokens (name, token, scopes, namespaces, rateLimit). With any token, every scope needs a token that allows it (admin allows all); with none, every scope is open and the router listens on loopback only",
    ),
  insecureOpen: z
    .boolean()
    .default(false)
    .describe(
      "Allow listening on a non-loopback address with no tokens: every scope open to the network (logged as a warning)",
    ),
  ...securityConfigFields,
  ...identityConfigFields,
  ...auditConfigFields,
  ...telemetryConfigFields,
  ...codeModeConfigFields,
  maxInstancesPerService: z
    .number()
    .int()
    .positive()
    .default(16)
    .describe("Most registered instances of one service name; further registrations are refused (409)"),
  rateLimit: rateLimitSchema
    .or(z.literal(false))
    .optional()
    .describe(
      `Requests per token without its own rateLimit, and per client address without a token ({requestsPerSecond, burst}); default with tokens configured ${DEFAULT_TOKEN_RATE_LIMIT.requestsPerSecond}/s (burst ${DEFAULT_TOKEN_RATE_LIMIT.burst}), none without tokens; false for none. Per process: each of --workers N gets 1/N`,
    ),
  forwardHeaders: z
    .array(z.string().transform((h) => h.toLowerCase()))
    .default([])
    .describe(
      "Request headers forwarded to capabilities as call metadata (e.g. x-tenant); authorization, proxy-authorization and cookie are refused while tokens are configured (they carry the client's credential for this router)",
    ),
  codeExecutionToolName: z.string().default("execute_code").describe("Name of the MCP tool that runs code"),
  pageSize: z.number().int().min(1).max(100_000).default(1000).describe("Items per page of MCP list results"),
  mcpRevisions: z
    .array(z.enum(MCP_REVISIONS))
    .min(1, "at least one MCP revision must be accepted")
    .default([...MCP_REVISIONS])
    .describe(
      `MCP revisions the router accepts (default: all it speaks, ${MCP_REVISIONS.join(", ")}); a client offering another is walked back to the newest accepted one (initialize) or refused with the list (stateless requests)`,
    ),
  listCacheTtlMs: z
    .number()
    .int()
    .nonnegative()
    .default(60_000)
    .describe(
      "Caching hint (ttlMs) on stateless list and discover results: how long a client may keep them; changes reach subscriptions/listen streams at once",
    ),
  probeIntervalMs: z
    .number()
    .int()
    .positive()
    .default(5_000)
    .describe("How often services are health-probed"),
  registrationGraceMs: z
    .number()
    .int()
    .nonnegative()
    .default(30_000)
    .describe("How long a new service may stay pending"),
  heartbeatTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(90_000)
    .describe("A service silent this long is marked down"),
  circuitFailureThreshold: z
    .number()
    .int()
    .positive()
    .default(3)
    .describe("Failed calls in a row (unreachable, deadline) that take a service instance out of rotation"),
  circuitOpenMs: z
    .number()
    .int()
    .positive()
    .default(30_000)
    .describe("How long an instance stays out of rotation after that, before a trial call"),
  unaryTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe("Default deadline of unary capability calls"),
  streamTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(60_000)
    .describe("Default deadline of code execution streams (above the engines' own run limits)"),
  forwardStartTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(120_000)
    .describe(
      "How long a forward's MCP server may take to start and answer 'initialize' the first time the router connects to it (a first 'npx -y' downloads the package meanwhile); a forward's own startTimeoutMs wins",
    ),
  forwardHandshakeTimeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(600_000)
    .default(30_000)
    .describe(
      "How long a forward's MCP server may take to answer 'initialize' on every later connection (a process started again, per-call processes, reconnections); a forward's own handshakeTimeoutMs wins",
    ),
  forwardHomesDir: z
    .string()
    .optional()
    .describe(
      "Directory of the sandboxed stdio forwards' private homes (their npm and uv caches), one per forward, kept across restarts (default: .trestle/forwards; a temporary directory with memoryStore)",
    ),
  forwardMaxPerCallProcesses: z
    .number()
    .int()
    .min(1)
    .max(1_024)
    .default(8)
    .describe(
      "Processes one per-call stdio forward may run at once; four calls per process may wait for one, more fail at once",
    ),
  services: z
    .record(z.string(), serviceSchema)
    .default({})
    .describe(
      "Per-service settings by service name: protocol, dialect, callSecret, upstreamAuth (the router's own credential for it: static, or tokenExchange of each caller's OAuth token), principal, allowedNetworks, unaryTimeoutMs, streamTimeoutMs, maxConcurrentCalls, maxQueuedCalls",
    ),
  ...transportsConfigFields,
  tlsCaFile: z.string().optional().describe("CA certificate (PEM) trusted for TLS to capabilities"),
  tlsCertFile: z.string().optional().describe("Client certificate (PEM) for mutual TLS to capabilities"),
  tlsKeyFile: z.string().optional().describe("Client key (PEM) for mutual TLS to capabilities"),
  eventHistorySize: z
    .number()
    .int()
    .nonnegative()
    .default(1000)
    .describe("Tool-call events kept for the history endpoint"),
  eventMaxBytes: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024)
    .describe(
      "Largest tool-call event, as JSON; a larger one has its arguments, body and results cut, marked '…[truncated N bytes]'",
    ),
  eventHistoryMaxBytes: z
    .number()
    .int()
    .nonnegative()
    .default(8 * 1024 * 1024)
    .describe(
      "Bytes of tool-call events the history keeps in all (the oldest go first), besides eventHistorySize; an event not yet read counts the size of what it records",
    ),
  maxBatchMessages: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(100)
    .describe(
      "Most messages in one JSON-RPC batch; a larger batch is refused whole (400), nothing dispatched",
    ),
  maxStreamsPerSession: z
    .number()
    .int()
    .positive()
    .default(256)
    .describe(
      "Requests one MCP session may have awaiting answers at once (429 beyond); its one GET stream is apart",
    ),
  maxRequestsPerPrincipal: z
    .number()
    .int()
    .positive()
    .default(512)
    .describe(
      "MCP and A2A requests one principal may have open at once: calls awaiting answers, GET, listen and A2A streams (429 beyond). Per process: each of --workers N gets 1/N",
    ),
  maxListenStreamsPerPrincipal: z
    .number()
    .int()
    .positive()
    .default(16)
    .describe("subscriptions/listen streams one principal may have open at once (429 beyond)"),
  listenMaxAgeMs: z
    .number()
    .int()
    .min(10_000)
    .default(60 * 60_000)
    .describe("A subscriptions/listen stream is closed this long after it opened; its client opens another"),
  maxConcurrentRunsPerPrincipal: z
    .number()
    .int()
    .positive()
    .default(4)
    .describe(
      "Code runs one principal may have going at once, through every front (the engines bound each run's time and memory)",
    ),
  maxTasksPerPrincipal: z
    .number()
    .int()
    .positive()
    .default(1_000)
    .describe(
      "MCP tasks (unexpired) and A2A tasks (stored: within their retention, or past it until the hourly sweep removes them) one principal may hold, counted in the store across replicas; a call that would start one more is refused",
    ),
  maxConnections: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe("Connections the HTTP listener accepts at once; more are closed as they arrive"),
  sseMaxBufferedBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024)
    .describe(
      "Bytes a slow SSE reader (event stream, MCP stream) may leave unread in the router before it is dropped",
    ),
  maxResourceUriLength: z
    .number()
    .int()
    .min(64)
    .default(8 * 1024)
    .describe("Longest URI resources/read accepts, in characters (-32602 beyond)"),
  a2aTaskRetentionMs: z
    .number()
    .int()
    .min(60_000, "A2A tasks must be kept at least 60000 ms (one minute)")
    .default(7 * 24 * 60 * 60_000)
    .describe(
      "A2A tasks are kept this long after their last change; then GetTask answers -32001 and the store drops them",
    ),
  drainTimeoutMs: z
    .number()
    .int()
    .nonnegative()
    .default(10_000)
    .describe("On shutdown, how long in-flight calls may finish"),
  logLevel: z
    .enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"])
    .default("info")
    .describe("Log level"),
  logFormat: z
    .enum(["auto", "pretty", "json"])
    .default("auto")
    .describe(
      "How log lines are written: `json` (one JSON object per line, for collectors), `pretty` (a line a person reads: time, level, message, fields), or `auto`: pretty when standard error is a terminal, else JSON",
    ),
});

/** The validated configuration. */
export type RouterConfig = z.infer<typeof routerConfigSchema>;
/** Configuration as written: every key optional. */
export type RouterConfigInput = z.input<typeof routerConfigSchema>;

/** How each top-level key is set from the environment and the command line. */
export const configSources: Record<string, { env: string; flag?: string }> = {
  host: { env: "TRESTLE_HOST", flag: "--host" },
  port: { env: "TRESTLE_PORT", flag: "--port" },
  dataDir: { env: "TRESTLE_DATA_DIR", flag: "--data-dir" },
  databaseUrl: { env: "TRESTLE_DATABASE_URL", flag: "--database-url" },
  memoryStore: { env: "TRESTLE_MEMORY_STORE", flag: "--memory-store" },
  workers: { env: "TRESTLE_WORKERS", flag: "--workers" },
  stateless: { env: "TRESTLE_STATELESS", flag: "--stateless" },
  sessionSecret: { env: "TRESTLE_SESSION_SECRET" },
  sessionIdleTimeoutMs: { env: "TRESTLE_SESSION_IDLE_TIMEOUT_MS" },
  sessionMaxAgeMs: { env: "TRESTLE_SESSION_MAX_AGE_MS" },
  maxSessions: { env: "TRESTLE_MAX_SESSIONS" },
  maxBodyBytes: { env: "TRESTLE_MAX_BODY_BYTES" },
  allowedHosts: { env: "TRESTLE_ALLOWED_HOSTS", flag: "--allowed-host" },
  allowedOrigins: { env: "TRESTLE_ALLOWED_ORIGINS", flag: "--allowed-origin" },
  tokens: { env: "TRESTLE_TOKENS" },
  insecureOpen: { env: "TRESTLE_INSECURE_OPEN", flag: "--insecure-open" },
  ...securityConfigSources,
  ...identityConfigSources,
  ...auditConfigSources,
  ...telemetryConfigSources,
  ...codeModeConfigSources,
  maxInstancesPerService: { env: "TRESTLE_MAX_INSTANCES_PER_SERVICE" },
  rateLimit: { env: "TRESTLE_RATE_LIMIT" },
  forwardHeaders: { env: "TRESTLE_FORWARD_HEADERS", flag: "--forward-header" },
  codeExecutionToolName: { env: "TRESTLE_CODE_EXECUTION_TOOL" },
  pageSize: { env: "TRESTLE_PAGE_SIZE" },
  mcpRevisions: { env: "TRESTLE_MCP_REVISIONS", flag: "--mcp-revision" },
  listCacheTtlMs: { env: "TRESTLE_LIST_CACHE_TTL_MS" },
  probeIntervalMs: { env: "TRESTLE_PROBE_INTERVAL_MS" },
  registrationGraceMs: { env: "TRESTLE_REGISTRATION_GRACE_MS" },
  heartbeatTimeoutMs: { env: "TRESTLE_HEARTBEAT_TIMEOUT_MS" },
  circuitFailureThreshold: { env: "TRESTLE_CIRCUIT_FAILURE_THRESHOLD" },
  circuitOpenMs: { env: "TRESTLE_CIRCUIT_OPEN_MS" },
  unaryTimeoutMs: { env: "TRESTLE_UNARY_TIMEOUT_MS" },
  streamTimeoutMs: { env: "TRESTLE_STREAM_TIMEOUT_MS" },
  forwardStartTimeoutMs: { env: "TRESTLE_FORWARD_START_TIMEOUT_MS" },
  forwardHandshakeTimeoutMs: { env: "TRESTLE_FORWARD_HANDSHAKE_TIMEOUT_MS" },
  forwardHomesDir: { env: "TRESTLE_FORWARD_HOMES_DIR" },
  forwardMaxPerCallProcesses: { env: "TRESTLE_FORWARD_MAX_PER_CALL_PROCESSES" },
  services: { env: "TRESTLE_SERVICES" },
  ...transportsConfigSources,
  tlsCaFile: { env: "TRESTLE_TLS_CA_FILE", flag: "--tls-ca" },
  tlsCertFile: { env: "TRESTLE_TLS_CERT_FILE", flag: "--tls-cert" },
  tlsKeyFile: { env: "TRESTLE_TLS_KEY_FILE", flag: "--tls-key" },
  eventHistorySize: { env: "TRESTLE_EVENT_HISTORY_SIZE" },
  eventMaxBytes: { env: "TRESTLE_EVENT_MAX_BYTES" },
  eventHistoryMaxBytes: { env: "TRESTLE_EVENT_HISTORY_MAX_BYTES" },
  maxBatchMessages: { env: "TRESTLE_MAX_BATCH_MESSAGES" },
  maxStreamsPerSession: { env: "TRESTLE_MAX_STREAMS_PER_SESSION" },
  maxConnections: { env: "TRESTLE_MAX_CONNECTIONS" },
  maxRequestsPerPrincipal: { env: "TRESTLE_MAX_REQUESTS_PER_PRINCIPAL" },
  maxListenStreamsPerPrincipal: { env: "TRESTLE_MAX_LISTEN_STREAMS_PER_PRINCIPAL" },
  listenMaxAgeMs: { env: "TRESTLE_LISTEN_MAX_AGE_MS" },
  maxTasksPerPrincipal: { env: "TRESTLE_MAX_TASKS_PER_PRINCIPAL" },
  maxConcurrentRunsPerPrincipal: { env: "TRESTLE_MAX_CONCURRENT_RUNS_PER_PRINCIPAL" },
  sseMaxBufferedBytes: { env: "TRESTLE_SSE_MAX_BUFFERED_BYTES" },
  maxResourceUriLength: { env: "TRESTLE_MAX_RESOURCE_URI_LENGTH" },
  a2aTaskRetentionMs: { env: "TRESTLE_A2A_TASK_RETENTION_MS" },
  drainTimeoutMs: { env: "TRESTLE_DRAIN_TIMEOUT_MS" },
  logLevel: { env: "TRESTLE_LOG_LEVEL", flag: "--log-level" },
  logFormat: { env: "TRESTLE_LOG_FORMAT", flag: "--log-format" },
};

/**
 * Settings that hold secrets. Each may also come from a file named by its variable with `_FILE` added
 * (`TRESTLE_TOKENS_FILE=/run/secrets/tokens`), so that the secret need not be in the router's environment at all.
 */
export const SECRET_SETTINGS = ["tokens", "sessionSecret", "databaseUrl", "services"] as const;

/** Headers that carry a client's credential to the router: never passed on while tokens guard the router. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

/** What the settings get wrong together, each in a sentence (empty when nothing). */
export function configProblems(config: RouterConfig): string[] {
  const problems: string[] = [];
  if (requiresCredentials(config)) {
    const credentials = config.forwardHeaders.filter((h) => CREDENTIAL_HEADERS.has(h));
    if (credentials.length > 0) {
      problems.push(
        `forwardHeaders: ${credentials.join(", ")} carries the client's token for this router, which must not reach a capability while tokens are configured; give each service its own credential (services.<name>.callSecret) instead`,
      );
    }
  }
  return problems;
}

/**
 * The rate limit that applies to a token without its own (and to requests without a token): `rateLimit` when
 * set, none when it is `false`, else {@link DEFAULT_TOKEN_RATE_LIMIT} when tokens are configured. Divided among
 * `workers` processes, which each count their own requests.
 */
export function effectiveRateLimit(
  config: RouterConfig,
): { requestsPerSecond: number; burst?: number } | undefined {
  const limit =
    config.rateLimit === false
      ? undefined
      : (config.rateLimit ?? (requiresCredentials(config) ? DEFAULT_TOKEN_RATE_LIMIT : undefined));
  return limit && dividedRateLimit(limit, config.workers);
}

/** A rate limit's share for one of `workers` processes (each keeps its own buckets). */
export function dividedRateLimit(
  limit: { requestsPerSecond: number; burst?: number | undefined },
  workers: number,
): { requestsPerSecond: number; burst?: number } {
  if (workers <= 1)
    return limit.burst === undefined
      ? { requestsPerSecond: limit.requestsPerSecond }
      : { requestsPerSecond: limit.requestsPerSecond, burst: limit.burst };
  return {
    requestsPerSecond: limit.requestsPerSecond / workers,
    ...(limit.burst !== undefined ? { burst: Math.max(1, Math.ceil(limit.burst / workers)) } : {}),
  };
}
