import { applyMigrations, type Migration, type MigrationOptions } from "./schema-migrations.js";
import type { StoreSqlClient } from "./sql-client.js";

/**
 * Where the registry records its steps, and the lock that serialises them across replicas that start at once: the
 * second waits on it (held until the first one's transaction ends) and then finds the steps applied.
 */
export const REGISTRY_MIGRATIONS: MigrationOptions = Object.freeze({
  table: "trestle_schema_migrations",
  lockKey: 7_246_413_001,
});

/** The registry's schema, step by step. Times are epoch milliseconds written by the registry's clock. */
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
  // Steps 4 to 7 made the tables of the router's fronts (A2A tasks, MCP tasks, ended MCP sessions). The server owns
  // those tables now: its own migrations adopt them where these steps made them, and make them where not. The
  // steps stay, empty, so that each version keeps its meaning in every database.
  { version: 4, name: "A2A tasks the router's A2A front started", sql: "" },
  {
    version: 5,
    name: "MCP tasks (the io.modelcontextprotocol/tasks extension) the router's MCP front started",
    sql: "",
  },
  { version: 6, name: "ended MCP sessions", sql: "" },
  { version: 7, name: "owners of A2A tasks", sql: "" },
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
 * Brings the registry's schema up to date (see {@link applyMigrations}).
 *
 * @returns the versions applied now (empty when the schema was current).
 */
export function applyRegistryMigrations(
  client: StoreSqlClient,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  return applyMigrations(client, migrations, REGISTRY_MIGRATIONS);
}
