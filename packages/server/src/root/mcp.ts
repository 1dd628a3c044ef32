import { createHmac } from "node:crypto";
import { TrestleError } from "@trestle/core";
import type { Registry } from "@trestle/registry";
import type { Logger } from "pino";
import type { RouterConfig } from "../config.js";
import { requiresCredentials } from "../config-identity.js";
import type { ForwardDirectory } from "../forwards/forward-directory.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { followCatalogChanges } from "../mcp/catalog-changes.js";
import { followEndedSessions, storeLedger } from "../mcp/ended-sessions.js";
import { createMcpEndpoint, type McpEndpoint } from "../mcp/mcp-endpoint.js";
import type { McpBackend, McpSettings } from "../mcp/namespace-server.js";
import { parseAcceptedRevisions } from "../mcp/protocol-era.js";
import { createTaskRunner } from "../mcp/tasks.js";
import type { ServerState } from "../state/server-state.js";
import { SERVER_VERSION } from "../version.js";
import type { CallsModule } from "./calls.js";

/** The MCP front: its endpoint over Streamable HTTP, and what the stdio front serves with. */
export interface McpModule {
  readonly endpoint: McpEndpoint;
  readonly backend: McpBackend;
  readonly settings: Omit<McpSettings, "listChangedDelivered">;
  close(): Promise<void>;
}

/** The MCP settings both transports serve with, from the configuration. */
function mcpSettingsOf(config: RouterConfig): Omit<McpSettings, "listChangedDelivered"> {
  return {
    maxResourceUriLength: config.maxResourceUriLength,
    serverInfo: { name: "trestle", version: SERVER_VERSION },
    pageSize: config.pageSize,
    forwardHeaders: config.forwardHeaders,
    acceptedRevisions: parseAcceptedRevisions(config.mcpRevisions),
    // With tokens, what one principal may see another may not: no shared cache may keep it.
    caching: {
      listTtlMs: config.listCacheTtlMs,
      cacheScope: requiresCredentials(config) ? "private" : "public",
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
}

/**
 * Builds the MCP front on the call service: its tasks in the server's state (any replica answers `tasks/get`), its
 * sessions' ends kept there and followed from other replicas, the catalog's and the engines' changes told
 * to its clients.
 */
export async function createMcpModule(
  config: RouterConfig,
  deps: {
    calls: CallsModule;
    state: Pick<ServerState, "mcpTasks" | "endedMcpSessions">;
    registry: Registry;
    forwardDirectory: ForwardDirectory;
    limiter: RateLimiter;
    onStreamDropped: (bufferedBytes: number) => void;
    logger: Logger;
  },
): Promise<McpModule> {
  const { state, registry } = deps;
  const backend: McpBackend = {
    calls: deps.calls.calls,
    canServeResources: (namespace) =>
      deps.calls.resourcesServable() || registry.catalog.listResources(namespace).length > 0,
    forwards: deps.forwardDirectory,
    tasks: createTaskRunner({ store: state.mcpTasks, maxTasksPerPrincipal: config.maxTasksPerPrincipal }),
  };
  const settings = mcpSettingsOf(config);
  const endpoint = createMcpEndpoint(backend, {
    stateless: config.stateless,
    maxBodyBytes: config.maxBodyBytes,
    maxBatchMessages: config.maxBatchMessages,
    maxStreamsPerSession: config.maxStreamsPerSession,
    maxListenStreamsPerPrincipal: config.maxListenStreamsPerPrincipal,
    listenMaxAgeMs: config.listenMaxAgeMs,
    sseMaxBufferedBytes: config.sseMaxBufferedBytes,
    limiter: deps.limiter,
    onStreamDropped: deps.onStreamDropped,
    settings,
    sessions: {
      idleTimeoutMs: config.sessionIdleTimeoutMs,
      maxAgeMs: config.sessionMaxAgeMs,
      maxSessions: config.maxSessions,
      ...(config.sessionSecret ? { secret: Buffer.from(config.sessionSecret) } : {}),
      // A client's DELETE is final on every replica and after a restart: the store's database keeps the ends.
      ledger: storeLedger(state.endedMcpSessions),
      // A deleted namespace's sessions stay ended, also once a namespace of its name is created again.
      namespaceId: (namespace) => registry.catalog.getNamespace(namespace)?.id,
    },
  });
  // Sessions ended on other replicas are forgotten here as they end (their GET streams close).
  const stopFollowingEndedSessions = config.stateless
    ? async () => undefined
    : await followEndedSessions(state.endedMcpSessions, endpoint.sessions, {
        onCatchUpFailed: (error) =>
          deps.logger.warn(
            { err: TrestleError.from(error).rawMessage },
            "could not read the MCP sessions ended while notifications were lost; they end at their next use",
          ),
      });
  const unsubscribeCatalog = followCatalogChanges(registry.catalog, {
    listChanged: (namespace, kind) => endpoint.listChanged(namespace, kind),
    resourceUpdated: (namespace, uri) => endpoint.resourceUpdated(namespace, uri),
    namespaceRemoved: (namespace) => endpoint.dropNamespace(namespace),
  });
  // The code execution tool comes and goes with the engines, in every namespace.
  const unsubscribeEngines = deps.calls.onEnginesChanged(() => endpoint.listChanged(undefined, "tools"));
  return {
    endpoint,
    backend,
    settings,
    async close() {
      unsubscribeCatalog();
      unsubscribeEngines();
      await stopFollowingEndedSessions();
      await endpoint.close();
      await backend.tasks?.close();
    },
  };
}
