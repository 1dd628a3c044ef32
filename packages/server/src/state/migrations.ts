import type { Migration, MigrationOptions } from "@trestle/registry";
import { adoptRowRecordsSql } from "../audit/audit-table.js";

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
  {
    version: 5,
    name: "the audit trail",
    // One row per policy decision and call outcome, written in batches by every replica; `id` orders the rows
    // (newest first in queries, the live tail reads forward from an id), `at` serves the retention's deletes.
    sql: `
      CREATE TABLE IF NOT EXISTS trestle_audit (
        id bigserial PRIMARY KEY,
        at bigint NOT NULL,
        principal_id text NOT NULL,
        principal_name text NOT NULL,
        principal_kind text NOT NULL,
        namespace text NOT NULL,
        method text NOT NULL,
        target text,
        decision text NOT NULL,
        rule text,
        outcome text,
        error_code text,
        duration_ms integer,
        front text NOT NULL,
        request_id text,
        arguments jsonb
      );
      CREATE INDEX IF NOT EXISTS trestle_audit_at ON trestle_audit (at);
      CREATE INDEX IF NOT EXISTS trestle_audit_principal ON trestle_audit (principal_id, id DESC);
    `,
  },
  {
    version: 6,
    name: "policy rules managed through the management API",
    // One row: the rules that follow the configured ones, and the default when the API set one.
    sql: `
      CREATE TABLE IF NOT EXISTS trestle_policies (
        id text PRIMARY KEY,
        rules jsonb NOT NULL,
        default_effect text,
        revision bigint NOT NULL,
        updated_at bigint NOT NULL,
        updated_by text NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: "a count of each principal's A2A tasks",
    // The A2A front reads a principal's count before each new task (its bound): a row here, kept by triggers on
    // the tasks' inserts and deletes in the same transaction, so that every replica (and any writer) keeps it
    // exact, instead of counting the principal's rows on each message. Made under the table's lock with the
    // rows it counts, so no insert slips between the count and the triggers.
    sql: `
      CREATE TABLE IF NOT EXISTS trestle_a2a_task_counts (
        principal text PRIMARY KEY,
        tasks bigint NOT NULL
      );
      LOCK TABLE trestle_a2a_tasks IN SHARE ROW EXCLUSIVE MODE;
      CREATE OR REPLACE FUNCTION trestle_a2a_task_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO trestle_a2a_task_counts (principal, tasks) VALUES (NEW.principal, 1)
          ON CONFLICT (principal) DO UPDATE SET tasks = trestle_a2a_task_counts.tasks + 1;
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION trestle_a2a_task_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE trestle_a2a_task_counts AS c SET tasks = c.tasks - gone.n
          FROM (SELECT principal, count(*) AS n FROM removed GROUP BY principal) AS gone
          WHERE c.principal = gone.principal;
        DELETE FROM trestle_a2a_task_counts WHERE tasks <= 0;
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION trestle_a2a_task_counts_owner() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.principal IS DISTINCT FROM OLD.principal THEN
          UPDATE trestle_a2a_task_counts SET tasks = tasks - 1 WHERE principal = OLD.principal;
          INSERT INTO trestle_a2a_task_counts (principal, tasks) VALUES (NEW.principal, 1)
            ON CONFLICT (principal) DO UPDATE SET tasks = trestle_a2a_task_counts.tasks + 1;
        END IF;
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION trestle_a2a_task_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM trestle_a2a_task_counts;
        RETURN NULL;
      END $$;
      DROP TRIGGER IF EXISTS trestle_a2a_task_counts_insert ON trestle_a2a_tasks;
      CREATE TRIGGER trestle_a2a_task_counts_insert AFTER INSERT ON trestle_a2a_tasks
        FOR EACH ROW EXECUTE FUNCTION trestle_a2a_task_counts_insert();
      DROP TRIGGER IF EXISTS trestle_a2a_task_counts_delete ON trestle_a2a_tasks;
      CREATE TRIGGER trestle_a2a_task_counts_delete AFTER DELETE ON trestle_a2a_tasks
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION trestle_a2a_task_counts_delete();
      DROP TRIGGER IF EXISTS trestle_a2a_task_counts_owner ON trestle_a2a_tasks;
      CREATE TRIGGER trestle_a2a_task_counts_owner AFTER UPDATE OF principal ON trestle_a2a_tasks
        FOR EACH ROW EXECUTE FUNCTION trestle_a2a_task_counts_owner();
      DROP TRIGGER IF EXISTS trestle_a2a_task_counts_truncate ON trestle_a2a_tasks;
      CREATE TRIGGER trestle_a2a_task_counts_truncate AFTER TRUNCATE ON trestle_a2a_tasks
        FOR EACH STATEMENT EXECUTE FUNCTION trestle_a2a_task_counts_truncate();
      DELETE FROM trestle_a2a_task_counts;
      INSERT INTO trestle_a2a_task_counts (principal, tasks)
        SELECT principal, count(*) FROM trestle_a2a_tasks GROUP BY principal;
    `,
  },
  {
    version: 8,
    name: "the audit trail a batch to a row",
    // A call's record cost the store a row and three index entries; a batch's row costs each record a share of one.
    // The record id becomes the batch's id × 1000 plus the record's index there, so the rows present are moved in
    // order and their ids change once. `trestle_audit` stays for routers of the older layout during a rolling
    // upgrade: the sweep moves what they write.
    sql: `
      CREATE TABLE IF NOT EXISTS trestle_audit_batches (
        id bigserial PRIMARY KEY,
        first_at bigint NOT NULL,
        last_at bigint NOT NULL,
        principals text[] NOT NULL,
        records integer NOT NULL,
        body text NOT NULL
      );
      CREATE INDEX IF NOT EXISTS trestle_audit_batches_last_at ON trestle_audit_batches (last_at);
      ${adoptRowRecordsSql("ALL")};
    `,
  },
];
