import { Code, TrestleError } from "@trestle/core";
import type { StoreSqlClient } from "./sql-client.js";

/** One step of a schema. Steps are applied in order of `version`, each once, and never edited once released. */
export interface Migration {
  version: number;
  name: string;
  /** The step's statements; empty for a step that no longer does anything (its version stays taken). */
  sql: string;
}

/**
 * Where one owner of state records the steps it applied, and the advisory lock that serialises them. Each owner of
 * tables on the database has its own of both: the registry's are `trestle_schema_migrations` and 7 246 413 001.
 */
export interface MigrationOptions {
  /** The table of applied versions, made when missing: a lower-case SQL name (`[a-z_][a-z0-9_]*`). */
  table: string;
  /** The key of the transaction-level advisory lock (`pg_advisory_xact_lock`) held while the steps apply. */
  lockKey: number;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Brings a schema up to date: applies every step of `migrations` not recorded in `options.table` yet, in order, in
 * one transaction, under the advisory lock `options.lockKey`, so that replicas starting together apply each step
 * exactly once. Another owner of state on the store's database applies its own steps this way, on `Store.sql`.
 *
 * @example
 * ```ts
 * await applyMigrations(store.sql, SERVER_MIGRATIONS, { table: "trestle_server_schema_migrations", lockKey: 7_246_413_003 });
 * ```
 * @returns the versions applied now (empty when the schema was current).
 * @throws TrestleError `InvalidArgument` for a table name that is no plain SQL name or a lock key that is no safe
 * integer; whatever a step's SQL throws (nothing of this call is then applied).
 */
export async function applyMigrations(
  client: Pick<StoreSqlClient, "transaction">,
  migrations: readonly Migration[],
  options: MigrationOptions,
): Promise<number[]> {
  const { table, lockKey } = options;
  if (!TABLE_NAME.test(table)) {
    throw new TrestleError(
      `The migrations table '${table}' is no plain SQL name: use lower-case letters, digits and _ (at most 63)`,
      Code.InvalidArgument,
    );
  }
  if (!Number.isSafeInteger(lockKey)) {
    throw new TrestleError(`The migrations lock key ${lockKey} is no safe integer`, Code.InvalidArgument);
  }
  return client.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [lockKey]);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS ${table} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )
    `);
    const rows = await tx.query<{ version: number }>(`SELECT version FROM ${table}`);
    const applied = new Set(rows.map((r) => Number(r.version)));
    const newlyApplied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      if (migration.sql.trim() !== "") await tx.exec(migration.sql);
      await tx.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
