import type { SqlClient } from "./sql-client.js";

/** One step of the schema. Steps are applied in order, each once, and never edited once released. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Serialises migrations across replicas that start at once: the second waits on this lock (held until the
 * first one's transaction ends) and then finds the steps applied.
 */
const MIGRATION_LOCK_KEY = 7_246_413_001;

/** The schema, step by step. Times are epoch milliseconds written by the registry's clock. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "catalog and service registry",
    sql: `
      CREATE SEQUENCE trestle_change_version;

      CREATE TABLE trestle_namespaces (
        name text PRIMARY KEY,
        id text NOT NULL UNIQUE,
        document jsonb NOT NULL,
        version bigint NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      INSERT INTO trestle_namespaces (name, id, document, version, created_at, updated_at)
        VALUES ('', 'default', '{}'::jsonb, nextval('trestle_change_version'), 0, 0);

      CREATE TABLE trestle_catalog_entries (
        kind text NOT NULL CHECK (kind IN ('tool', 'resource', 'prompt')),
        namespace text NOT NULL REFERENCES trestle_namespaces (name),
        key text NOT NULL,
        name text NOT NULL,
        id text NOT NULL,
        document jsonb NOT NULL,
        version bigint NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        CONSTRAINT trestle_catalog_entries_key PRIMARY KEY (kind, namespace, key),
        CONSTRAINT trestle_catalog_entries_name UNIQUE (kind, namespace, name),
        CONSTRAINT trestle_catalog_entries_id UNIQUE (kind, id)
      );

      CREATE TABLE trestle_services (
        id text PRIMARY KEY,
        endpoint text NOT NULL CONSTRAINT trestle_services_endpoint UNIQUE,
        target jsonb NOT NULL,
        health text NOT NULL CHECK (health IN ('healthy', 'pending', 'unhealthy', 'down')),
        health_message text,
        health_changed_at bigint NOT NULL,
        registered_at bigint NOT NULL,
        last_seen_at bigint NOT NULL,
        last_heartbeat_at bigint,
        version bigint NOT NULL
      );

      CREATE TABLE trestle_service_health_history (
        service_id text NOT NULL REFERENCES trestle_services (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        at bigint NOT NULL,
        state text NOT NULL,
        message text,
        PRIMARY KEY (service_id, seq)
      );

      CREATE TABLE trestle_leases (
        name text PRIMARY KEY,
        owner text NOT NULL,
        expires_at bigint NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "forwards in the catalog",
    sql: `
      ALTER TABLE trestle_catalog_entries DROP CONSTRAINT trestle_catalog_entries_kind_check;
      ALTER TABLE trestle_catalog_entries ADD CONSTRAINT trestle_catalog_entries_kind_check
        CHECK (kind IN ('tool', 'resource', 'prompt', 'forward'));
    `,
  },
  {
    version: 3,
    name: "service registrations bound to the principal that made them",
    // NULL for registrations made before this step: the next registration of that instance claims it.
    sql: `
      ALTER TABLE trestle_services ADD COLUMN owner text;
      CREATE INDEX trestle_services_service_name ON trestle_services ((target ->> 'serviceName'));
    `,
  },
  {
    version: 4,
    name: "A2A tasks the router's A2A front started",
    // Any replica answers GetTask, CancelTask and SubscribeToTask from here; the replica running a call polls
    // its row to see a cancellation another replica wrote.
    sql: `
      CREATE TABLE trestle_a2a_tasks (
        id text PRIMARY KEY,
        namespace text NOT NULL,
        context_id text NOT NULL,
        state text NOT NULL,
        document jsonb NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX trestle_a2a_tasks_namespace ON trestle_a2a_tasks (namespace, updated_at DESC);
    `,
  },
  {
    version: 5,
    name: "MCP tasks (the io.modelcontextprotocol/tasks extension) the router's MCP front started",
    // Any replica answers tasks/get from here; tasks/update and tasks/cancel on any replica leave their requests
    // in \`requests\`, which the replica running the call takes.
    sql: `
      CREATE TABLE trestle_mcp_tasks (
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
      CREATE INDEX trestle_mcp_tasks_expires ON trestle_mcp_tasks (expires_at);
    `,
  },
  {
    version: 6,
    name: "ended MCP sessions",
    sql: `
      CREATE TABLE trestle_ended_mcp_sessions (
        digest text PRIMARY KEY,
        ended_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX trestle_ended_mcp_sessions_ended ON trestle_ended_mcp_sessions (ended_at);
      CREATE INDEX trestle_ended_mcp_sessions_expires ON trestle_ended_mcp_sessions (expires_at);
    `,
  },
  {
    version: 7,
    name: "owners of A2A tasks",
    // A task answers only the principal that started it. Tasks stored before owners were kept belong to nobody
    // (no principal is named ''), so no one reads them again; the sweep removes them after their retention.
    sql: `
      ALTER TABLE trestle_a2a_tasks ADD COLUMN principal text NOT NULL DEFAULT '';
      CREATE INDEX trestle_a2a_tasks_principal ON trestle_a2a_tasks (principal, updated_at DESC);
      CREATE INDEX trestle_mcp_tasks_principal ON trestle_mcp_tasks (principal, expires_at);
    `,
  },
  {
    version: 8,
    name: "service names owned by the principal that first registered them",
    // An owner outlives its instances (deregistered, stale), so no other principal can claim its name by waiting.
    // Names registered before this step go to the principal of their earliest bound instance.
    sql: `
      CREATE TABLE trestle_service_owners (
        service_name text PRIMARY KEY,
        owner text NOT NULL,
        claimed_at bigint NOT NULL
      );
      INSERT INTO trestle_service_owners (service_name, owner, claimed_at)
        SELECT DISTINCT ON (target ->> 'serviceName') target ->> 'serviceName', owner, registered_at
          FROM trestle_services
         WHERE owner IS NOT NULL
         ORDER BY target ->> 'serviceName', registered_at, id;
    `,
  },
];

/**
 * Brings the schema up to date: applies every step newer than the database's, in one transaction, under an
 * advisory lock so that replicas starting together apply each step exactly once.
 *
 * @returns the versions applied now (empty when the schema was current).
 */
export async function applyMigrations(
  client: SqlClient,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  return client.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS trestle_schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )
    `);
    const rows = await tx.query<{ version: number }>("SELECT version FROM trestle_schema_migrations");
    const applied = new Set(rows.map((r) => Number(r.version)));
    const newlyApplied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO trestle_schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
