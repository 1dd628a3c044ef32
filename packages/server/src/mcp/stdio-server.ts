import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Registry } from "@trestle/registry";
import { type ClassifiedMessage, classifyMessage, JsonRpcErrorCode, jsonRpcError } from "./json-rpc.js";
import { type Exchange, McpDispatcher } from "./mcp-dispatcher.js";
import { createNamespaceMethods, type McpBackend, type McpSettings } from "./namespace-server.js";
import { META, metaProtocolVersion, readModernClient } from "./protocol-era.js";
import type { SessionState } from "./session-registry.js";
import type { SubscriptionFilter } from "./subscriptions.js";

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
): Promise<void> {
  const dispatcher = new McpDispatcher(
    createNamespaceMethods(namespace, backend, { ...settings, listChangedDelivered: true }),
    { serverInfo: settings.serverInfo },
  );
  /** Open `subscriptions/listen` subscriptions of this connection: their request id → what they asked for. */
  const subscriptions = new Map<string | number, SubscriptionFilter>();
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
      if (requestId !== undefined && subscriptions.delete(requestId)) return;
    }
    dispatcher.dispatch([classified], { namespace, session, headers: {} }, exchange);
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
      const asked = ((params as { notifications?: SubscriptionFilter }).notifications ?? {}) as Record<
        string,
        unknown
      >;
      const filter: SubscriptionFilter = {};
      if (asked.toolsListChanged === true) filter.toolsListChanged = true;
      if (asked.promptsListChanged === true) filter.promptsListChanged = true;
      if (asked.resourcesListChanged === true) filter.resourcesListChanged = true;
      subscriptions.set(id, filter);
      send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: filter, _meta: { [META.subscriptionId]: id } },
      } as JSONRPCMessage);
      return;
    }
    dispatcher.dispatch(
      [classified],
      { namespace, session: undefined, headers: {}, modern: client },
      exchange,
    );
  }

  const notify = (method: string, key: keyof SubscriptionFilter) => {
    // A legacy client hears every change on the connection; stateless ones on the subscriptions they opened.
    send({ jsonrpc: "2.0", method } as JSONRPCMessage);
    for (const [id, filter] of subscriptions) {
      if (filter[key])
        send({ jsonrpc: "2.0", method, params: { _meta: { [META.subscriptionId]: id } } } as JSONRPCMessage);
    }
  };
  const unsubscribe = registry.catalog.onChange((change) => {
    if (change.namespace !== namespace) return;
    if (change.kind === "tool") notify("notifications/tools/list_changed", "toolsListChanged");
    if (change.kind === "resource") {
      notify("notifications/resources/list_changed", "resourcesListChanged");
      if (change.op !== "added" && session.resourceSubscriptions?.has(change.key)) {
        send({
          jsonrpc: "2.0",
          method: "notifications/resources/updated",
          params: { uri: change.key },
        } as JSONRPCMessage);
      }
    }
    if (change.kind === "prompt") notify("notifications/prompts/list_changed", "promptsListChanged");
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
