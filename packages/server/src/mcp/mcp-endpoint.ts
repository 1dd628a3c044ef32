import type { IncomingMessage, ServerResponse } from "node:http";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { CallerPrincipal } from "../calls/caller.js";
import { McpDispatcher, type McpDispatcherOptions } from "./mcp-dispatcher.js";
import {
  createNamespaceMethods,
  DEFAULT_MAX_RESOURCE_URI_LENGTH,
  type McpBackend,
  type McpSettings,
} from "./namespace-server.js";
import {
  createSessionRegistry,
  type SessionRegistry,
  type SessionRegistryOptions,
} from "./session-registry.js";
import {
  createStreamableHttpHandler,
  notifySession,
  type StreamableHttpDependencies,
  type StreamableHttpOptions,
} from "./streamable-http.js";
import type { ListKind } from "./subscriptions.js";
import { createListenRegistry, type ListenRegistry } from "./subscriptions.js";

/** Options for {@link createMcpEndpoint}. */
export interface McpEndpointOptions
  extends Omit<StreamableHttpOptions, "acceptedRevisions">,
    Pick<StreamableHttpDependencies, "limiter" | "onStreamDropped"> {
  settings: Omit<McpSettings, "listChangedDelivered">;
  sessions: SessionRegistryOptions;
  /** Most `subscriptions/listen` streams open at once (default 10,000). */
  maxListenStreams?: number;
  /** Most `subscriptions/listen` streams one principal may have open at once. */
  maxListenStreamsPerPrincipal: number;
  /** How long a `subscriptions/listen` stream stays open before it is closed (its client opens another). */
  listenMaxAgeMs: number;
  /** Observes each MCP request (telemetry: spans, durations); nothing is observed without it. */
  observe?: McpDispatcherOptions["observe"];
}

export type { ListKind } from "./subscriptions.js";

/**
 * MCP over Streamable HTTP for every namespace: one method table and dispatcher per namespace (created on first
 * use), the session registry, and list_changed delivery to sessions' streams.
 */
export interface McpEndpoint {
  /**
   * Handles an HTTP request to a namespace's MCP path, made by `principal` (the token's name, or `anonymous` on a
   * router without tokens): its sessions, tasks, request states and held calls are bound to it.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): Promise<void>;
  /** Tells every session of `namespace` (or every namespace, for `undefined`) that a list changed. */
  listChanged(namespace: string | undefined, kind: ListKind): number;
  /** Tells the sessions and listeners subscribed to `uri` in `namespace` that the resource was updated. */
  resourceUpdated(namespace: string, uri: string): number;
  /** Drops a namespace's dispatcher (the namespace was deleted): its sessions end, its requests are cancelled. */
  dropNamespace(namespace: string): void;
  /** Requests being handled now, across namespaces. */
  inFlight(): number;
  readonly sessions: SessionRegistry;
  /** The open `subscriptions/listen` streams. */
  readonly listeners: ListenRegistry;
  close(): Promise<void>;
}

/** Creates the MCP endpoint over `backend`. */
export function createMcpEndpoint(backend: McpBackend, options: McpEndpointOptions): McpEndpoint {
  const sessions = createSessionRegistry(options.sessions);
  const namespaces = new Map<string, McpDispatcher>();
  const settings: McpSettings = { ...options.settings, listChangedDelivered: !options.stateless };
  const sweeper = setInterval(() => sessions.sweep(), Math.min(options.sessions.idleTimeoutMs, 60_000));
  sweeper.unref();

  function dispatcherFor(namespace: string): McpDispatcher {
    let dispatcher = namespaces.get(namespace);
    if (!dispatcher) {
      dispatcher = new McpDispatcher(createNamespaceMethods(namespace, backend, settings), {
        serverInfo: settings.serverInfo,
        ...(options.observe ? { observe: options.observe } : {}),
      });
      namespaces.set(namespace, dispatcher);
    }
    return dispatcher;
  }

  const listeners = createListenRegistry({
    maxStreams: options.maxListenStreams ?? 10_000,
    maxStreamsPerPrincipal: options.maxListenStreamsPerPrincipal,
    maxUriLength: settings.maxResourceUriLength ?? DEFAULT_MAX_RESOURCE_URI_LENGTH,
    maxAgeMs: options.listenMaxAgeMs,
    deliverable: (namespace) => ({
      tools: true,
      prompts: true,
      resources: backend.canServeResources(namespace),
    }),
  });

  const http = createStreamableHttpHandler(
    { ...options, acceptedRevisions: settings.acceptedRevisions },
    {
      sessions,
      listeners,
      dispatcherFor,
      ...(options.limiter ? { limiter: options.limiter } : {}),
      ...(options.onStreamDropped ? { onStreamDropped: options.onStreamDropped } : {}),
    },
  );

  return {
    handle: http,
    sessions,
    listeners,
    listChanged(namespace, kind) {
      const message = { jsonrpc: "2.0", method: `notifications/${kind}/list_changed` } as JSONRPCMessage;
      let delivered = listeners.listChanged(namespace, kind);
      for (const session of sessions.all()) {
        if (namespace !== undefined && session.namespace !== namespace) continue;
        if (notifySession(session, message)) delivered++;
      }
      return delivered;
    },
    resourceUpdated(namespace, uri) {
      const message = {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri },
      } as JSONRPCMessage;
      let delivered = listeners.resourceUpdated(namespace, uri);
      for (const session of sessions.all()) {
        if (session.namespace !== namespace || !session.resourceSubscriptions?.has(uri)) continue;
        if (notifySession(session, message)) delivered++;
      }
      return delivered;
    },
    dropNamespace(namespace) {
      const dispatcher = namespaces.get(namespace);
      namespaces.delete(namespace);
      for (const session of [...sessions.all()])
        if (session.namespace === namespace) sessions.delete(session.id);
      dispatcher?.close();
    },
    inFlight() {
      let n = 0;
      for (const dispatcher of namespaces.values()) n += dispatcher.inFlightCount;
      return n;
    },
    async close() {
      clearInterval(sweeper);
      sessions.close();
      for (const dispatcher of namespaces.values()) dispatcher.close();
      namespaces.clear();
    },
  };
}
