import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Registry } from "@trestle/registry";
import type { McpBackend, McpSettings } from "./namespace-server.js";
import { createNamespaceServer } from "./namespace-server.js";
import type { LogLevel } from "./session-registry.js";

/**
 * Serves one namespace over stdio (for clients that spawn the router): the same handlers as over HTTP, with
 * list_changed sent when the namespace's catalog changes. Resolves when stdin closes.
 */
export async function serveStdio(
  namespace: string,
  backend: McpBackend,
  settings: Omit<McpSettings, "listChangedDelivered">,
  registry: Registry,
): Promise<void> {
  let logLevel: LogLevel | undefined;
  const server = createNamespaceServer(
    namespace,
    backend,
    { ...settings, listChangedDelivered: true },
    (requestId) => ({
      requestId,
      connectionId: "stdio",
      headers: {},
      logLevel: () => logLevel,
      setLogLevel: (level) => {
        logLevel = level;
      },
    }),
  );
  const unsubscribe = registry.catalog.onChange((change) => {
    if (change.namespace !== namespace) return;
    if (change.kind === "tool") void server.sendToolListChanged().catch(() => undefined);
    if (change.kind === "resource") void server.sendResourceListChanged().catch(() => undefined);
    if (change.kind === "prompt") void server.sendPromptListChanged().catch(() => undefined);
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  unsubscribe();
  await server.close();
}
