import type { Migration, MigrationOptions } from "@trestle/registry";

/**
 * Where the server records the steps of its own schema, and the lock that serialises them across replicas that
 * start at once: apart from the registry's (`trestle_schema_migrations`, 7 246 413 001).
 */
export const SERVER_MIGRATIONS_OPTIONS: MigrationOptions = Object.freeze({
  table: "trestle_server_schema_migrations",
  lockKey: 7_246_413_003,
});

/**
 * The schema of the fronts' state, step by step. Times are epoch milliseconds written by the router's clock.
 *
 * The registry's migrations 4 to 7 made these tables until the server took them over. Each step here makes what
 * the registry's step of the same name made, with `IF NOT EXISTS` everywhere: on a database those steps prepared
 * it adopts the tables and their rows as they are; on a new one it makes the same tables, columns and indexes, so a
 * router of either version works on a database the other prepared.
 */
export const SERVER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "A2A tasks the router's A2A front started",
    // Any replica answers GetTask, CancelTask and SubscribeToTask from here; the replica running a call polls
    // its row to see a cancellation another replica wrote.
    sql: `
      CREATE TABLE IF NOT EXISTS trestle_a2a_tasks (
        id text PRIMARY KEY,
        namespace text NOT NULL,
        context_id text NOT NULL,
        state text NOT NULL,
        document jsonb NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX IF NOT EXISTS trestle_a2a_tasks_namespace ON trestle_a2a_tasks (namespace, updated_at DESC);
    `,
  },
  {
    version: 2,
    name: "MCP tasks (the io.modelcontextprotocol/tasks extension) the router's MCP front started",
    // Any replica answers tasks/get from here; tasks/update and tasks/cancel on any replica leave their requests
    // in `requests`, which the replica running the call takes.
    sql: `
      CREATE TABLE IF NOT EXISTS trestle_mcp_tasks (
        id text PRIMARY KEY,
        namespace text NOT NULL,
        principal text NOT NULL,
        status text NOT NULL,
        document jsonb NOT NULL,
        requests jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX IF NOT EXISTS trestle_mcp_tasks_expires ON trestle_mcp_tasks (expires_at);
    `,
  },
  {
    version: 3,
    name: "ended MCP sessions",
    sql: `
      CREATE TABLE IF NOT EXISTS trestle_ended_mcp_sessions (
        digest text PRIMARY KEY,
        ended_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX IF NOT EXISTS trestle_ended_mcp_sessions_ended ON trestle_ended_mcp_sessions (ended_at);
      CREATE INDEX IF NOT EXISTS trestle_ended_mcp_sessions_expires ON trestle_ended_mcp_sessions (expires_at);
    `,
  },
  {
    version: 4,
    name: "owners of A2A tasks",
    // A task answers only the principal that started it. Tasks stored before owners were kept belong to nobody
    // (no principal is named ''), so no one reads them again; the sweep removes them after their retention.
    sql: `
      ALTER TABLE trestle_a2a_tasks ADD COLUMN IF NOT EXISTS principal text NOT NULL DEFAULT '';
      CREATE INDEX IF NOT EXISTS trestle_a2a_tasks_principal ON trestle_a2a_tasks (principal, updated_at DESC);
      CREATE INDEX IF NOT EXISTS trestle_mcp_tasks_principal ON trestle_mcp_tasks (principal, expires_at);
    `,
  },
];
