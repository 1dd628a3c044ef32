import { applyMigrations, type StoreSqlClient } from "@trestle/registry";
import { type A2aTaskTable, createA2aTaskTable } from "./a2a-tasks.js";
import { createEndedMcpSessionTable, type EndedMcpSessionTable } from "./ended-mcp-sessions.js";
import { createMcpTaskTable, type McpTaskTable } from "./mcp-tasks.js";
import { SERVER_MIGRATIONS, SERVER_MIGRATIONS_OPTIONS } from "./migrations.js";

/**
 * What the router's replicas share besides the catalog and the registry: the fronts' state, one table each, in the
 * store's database. The server owns these tables and their schema; the store lends the SQL client.
 */
export interface ServerState {
  /** The A2A front's tasks. */
  readonly a2aTasks: A2aTaskTable;
  /** The MCP front's tasks (the `io.modelcontextprotocol/tasks` extension). */
  readonly mcpTasks: McpTaskTable;
  /** The MCP sessions clients ended. */
  readonly endedMcpSessions: EndedMcpSessionTable;
}

/**
 * Opens the fronts' state on the store's SQL client (`Store.sql`): brings the server's schema up to date (its own
 * migrations, recorded apart from the registry's; replicas that start at once wait for each other), then returns
 * the tables. Nothing to close: the store closes the client; a subscription is stopped by whoever made it.
 *
 * @returns the versions of the server's schema applied now, with the tables.
 * @throws TrestleError `Unavailable` when the database cannot be reached; whatever a migration's SQL throws.
 */
export async function openServerState(
  sql: StoreSqlClient,
): Promise<{ state: ServerState; applied: number[] }> {
  const applied = await applyMigrations(sql, SERVER_MIGRATIONS, SERVER_MIGRATIONS_OPTIONS);
  return {
    state: {
      a2aTasks: createA2aTaskTable(sql),
      mcpTasks: createMcpTaskTable(sql),
      endedMcpSessions: createEndedMcpSessionTable(sql),
    },
    applied,
  };
}
