import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Registry } from "@trestle/registry";
import { type ClassifiedMessage, classifyMessage, JsonRpcErrorCode, jsonRpcError } from "./json-rpc.js";
import { type Exchange, McpDispatcher } from "./mcp-dispatcher.js";
import { createNamespaceMethods, type McpBackend, type McpSettings } from "./namespace-server.js";
import type { SessionState } from "./session-registry.js";

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
  );
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
    dispatcher.dispatch([classified], { namespace, session, headers: {} }, exchange);
  };
  const notify = (method: string) => send({ jsonrpc: "2.0", method } as JSONRPCMessage);
  const unsubscribe = registry.catalog.onChange((change) => {
    if (change.namespace !== namespace) return;
    if (change.kind === "tool") notify("notifications/tools/list_changed");
    if (change.kind === "resource") notify("notifications/resources/list_changed");
    if (change.kind === "prompt") notify("notifications/prompts/list_changed");
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
