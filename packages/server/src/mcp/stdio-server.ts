import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Registry } from "@trestle/registry";
import { STDIO_PRINCIPAL } from "../calls/caller.js";
import { followCatalogChanges } from "./catalog-changes.js";
import { type ClassifiedMessage, classifyMessage, JsonRpcErrorCode, jsonRpcError } from "./json-rpc.js";
import { type Exchange, McpDispatcher, type McpDispatcherOptions } from "./mcp-dispatcher.js";
import {
  createNamespaceMethods,
  DEFAULT_MAX_RESOURCE_URI_LENGTH,
  type McpBackend,
  type McpSettings,
} from "./namespace-server.js";
import { META, metaProtocolVersion, readModernClient } from "./protocol-era.js";
import type { SessionState } from "./session-registry.js";
import { createListenRegistry } from "./subscriptions.js";

/** Options for {@link serveStdio}. */
export interface StdioServeOptions {
  /**
   * Observes each request as the HTTP front does (a server span with the MCP attributes, its parent the client's
   * `_meta.traceparent`; the request's duration); nothing is observed without it.
   */
  observe?: McpDispatcherOptions["observe"];
}

/**
 * Serves one namespace over stdio (for clients that spawn the router): the same method table and dispatcher as
 * over HTTP, the process's lifetime as the session, and list_changed sent when the namespace's catalog changes.
 * Resolves when stdin closes.
 */
export async function serveStdio(
  namespace: string,
  backend: McpBackend,
  settings: Omit<McpSettings, "listChangedDelivered">,
  registry: Registry,
  options: StdioServeOptions = {},
): Promise<void> {
  const dispatcher = new McpDispatcher(
    createNamespaceMethods(namespace, backend, { ...settings, listChangedDelivered: true }),
    { serverInfo: settings.serverInfo, ...(options.observe ? { observe: options.observe } : {}) },
  );
  /** Open `subscriptions/listen` subscriptions of this connection, by the id of their listen request. */
  const listeners = createListenRegistry({
    maxStreams: 64,
    maxStreamsPerPrincipal: 64,
    maxUriLength: settings.maxResourceUriLength ?? DEFAULT_MAX_RESOURCE_URI_LENGTH,
    // The stdio client's subscriptions last as long as its connection.
    maxAgeMs: 2 ** 31 - 1,
    deliverable: () => ({
      tools: true,
      prompts: true,
      resources: backend.canServeResources(namespace),
    }),
  });
  const subscriptions = new Map<string | number, () => void>();
  const session: SessionState = { id: "stdio", logLevel: undefined };
  // The SDK's stdio transport frames messages (one JSON text a line) and writes with back-pressure; it is its
  // public Transport interface that is used here, nothing of its Protocol.
  const transport = new StdioServerTransport();
  const send = (message: JSONRPCMessage) => void transport.send(message).catch(() => undefined);
  const exchange: Exchange = { respond: send, notify: send, finish: () => undefined };
  transport.onmessage = (message) => {
    const c = classifyMessage(message);
    if ("error" in c) {
      const id = (message as { id?: unknown }).id;
      send(
        jsonRpcError(
          JsonRpcErrorCode.InvalidRequest,
          `Invalid Request: ${c.error}`,
          typeof id === "string" || typeof id === "number" ? id : null,
        ) as JSONRPCMessage,
      );
      return;
    }
    const classified = { kind: c.kind, message } as ClassifiedMessage;
    const params = (message as { params?: unknown }).params;
    if (c.kind !== "response" && metaProtocolVersion(params) !== undefined) {
      serveModern(classified, params);
      return;
    }
    if (c.kind === "notification" && (message as { method?: string }).method === "notifications/cancelled") {
      // A stateless client ends a subscription by cancelling the listen request.
      const requestId = (params as { requestId?: string | number } | undefined)?.requestId;
      const remove = requestId === undefined ? undefined : subscriptions.get(requestId);
      if (remove && requestId !== undefined) {
        remove();
        subscriptions.delete(requestId);
        return;
      }
    }
    dispatcher.dispatch(
      [classified],
      { namespace, session, headers: {}, principal: STDIO_PRINCIPAL },
      exchange,
    );
  };

  /** Serves a stateless (2026-07-28) message on this connection: no session, its `_meta` checked first. */
  function serveModern(classified: ClassifiedMessage, params: unknown): void {
    if (classified.kind === "notification") return;
    const id = classified.message.id as string | number;
    const client = readModernClient(params, settings.acceptedRevisions);
    if ("status" in client) {
      send({
        jsonrpc: "2.0",
        id,
        error: {
          code: client.code,
          message: client.message,
          ...(client.data !== undefined ? { data: client.data } : {}),
        },
      } as JSONRPCMessage);
      return;
    }
    if (classified.message.method === "subscriptions/listen") {
      const accepted = listeners.accept(namespace, params, STDIO_PRINCIPAL.id);
      if ("status" in accepted) {
        send({
          jsonrpc: "2.0",
          id,
          error: { code: accepted.code, message: accepted.message },
        } as JSONRPCMessage);
        return;
      }
      const meta = { [META.subscriptionId]: id };
      send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: accepted.filter, _meta: meta },
      } as JSONRPCMessage);
      subscriptions.get(id)?.();
      subscriptions.set(
        id,
        listeners.add(
          namespace,
          accepted.filter,
          (n) => {
            send({
              jsonrpc: "2.0",
              method: n.method,
              params: { ...n.params, _meta: meta },
            } as JSONRPCMessage);
            return true;
          },
          STDIO_PRINCIPAL.id,
          () => undefined,
        ),
      );
      return;
    }
    dispatcher.dispatch(
      [classified],
      { namespace, session: undefined, headers: {}, modern: client, principal: STDIO_PRINCIPAL },
      exchange,
    );
  }

  const unsubscribe = followCatalogChanges(registry.catalog, {
    listChanged(changed, kind) {
      if (changed !== namespace) return;
      // A legacy client (one that initialized) hears every change; stateless ones on the subscriptions they opened.
      if (session.protocolVersion !== undefined)
        send({ jsonrpc: "2.0", method: `notifications/${kind}/list_changed` } as JSONRPCMessage);
      listeners.listChanged(namespace, kind);
    },
    resourceUpdated(changed, uri) {
      if (changed !== namespace) return;
      listeners.resourceUpdated(namespace, uri);
      if (session.protocolVersion !== undefined && session.resourceSubscriptions?.has(uri)) {
        send({
          jsonrpc: "2.0",
          method: "notifications/resources/updated",
          params: { uri },
        } as JSONRPCMessage);
      }
    },
  });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await transport.start();
  await closed;
  unsubscribe();
  dispatcher.close();
  await transport.close();
}
