import { Code, TrestleError } from "@trestle/core";
import { DEFAULT_NAMESPACE, describeNamespace } from "./namespace-name.js";
import { NEXT_VERSION, nextVersion, publish } from "./sql-change-feed.js";
import type { SqlClient } from "./sql-client.js";
import { databaseErrorOf, FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION } from "./sql-errors.js";
import type { EntryKind, Store, StoreChange, StoredEntry, StoredNamespace } from "./store.js";

/** The columns of a catalog entry, in the order {@link EntryRow} reads them. */
export const ENTRY_COLUMNS = "kind, namespace, key, name, id, document, version, created_at, updated_at";
/** The columns of a namespace, in the order {@link NamespaceRow} reads them. */
export const NAMESPACE_COLUMNS = "name, id, document, version, created_at, updated_at";

/** A catalog entry's row (bigints may come back as strings). */
export interface EntryRow {
  kind: EntryKind;
  namespace: string;
  key: string;
  name: string;
  id: string;
  document: Record<string, unknown>;
  version: number | string;
  created_at: number | string;
  updated_at: number | string;
}
/** A namespace's row. */
export interface NamespaceRow {
  name: string;
  id: string;
  document: Record<string, unknown>;
  version: number | string;
  created_at: number | string;
  updated_at: number | string;
}

/** The stored entry of a row. */
export function toEntry(row: EntryRow): StoredEntry {
  return {
    kind: row.kind,
    namespace: row.namespace,
    key: row.key,
    name: row.name,
    id: row.id,
    document: row.document,
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The stored namespace of a row. */
export function toNamespace(row: NamespaceRow): StoredNamespace {
  return {
    name: row.name,
    id: row.id,
    document: row.document,
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const KEY_LABEL: Record<EntryKind, string> = {
  tool: "named",
  resource: "at location",
  prompt: "named",
  forward: "named",
};

function entryWriteError(
  error: unknown,
  entry: { kind: EntryKind; namespace: string; key: string; name: string; id: string },
): unknown {
  const db = databaseErrorOf(error);
  if (db?.code === UNIQUE_VIOLATION) {
    const where = describeNamespace(entry.namespace);
    if (db.constraint === "trestle_catalog_entries_name") {
      return new TrestleError(
        `A ${entry.kind} named '${entry.name}' already exists in ${where}`,
        Code.AlreadyExists,
      );
    }
    if (db.constraint === "trestle_catalog_entries_id") {
      return new TrestleError(`A ${entry.kind} with id '${entry.id}' already exists`, Code.AlreadyExists);
    }
    return new TrestleError(
      `A ${entry.kind} ${KEY_LABEL[entry.kind]} '${entry.key}' already exists in ${where}`,
      Code.AlreadyExists,
    );
  }
  if (db?.code === FOREIGN_KEY_VIOLATION) {
    return new TrestleError(`Namespace '${entry.namespace}' does not exist`, Code.NotFound);
  }
  return error;
}

function notFound(kind: EntryKind, namespace: string, key: string): TrestleError {
  return new TrestleError(
    `No ${kind} ${KEY_LABEL[kind]} '${key}' exists in ${describeNamespace(namespace)}`,
    Code.NotFound,
  );
}

function entryChange(entry: StoredEntry, op: "upsert" | "delete", version = entry.version): StoreChange {
  return { kind: entry.kind, op, namespace: entry.namespace, key: entry.key, id: entry.id, version };
}
/** What the store does to the catalog: namespaces and their entries, each write publishing its changes. */
export type SqlCatalog = Pick<
  Store,
  | "fetchEntries"
  | "fetchNamespaces"
  | "insertNamespace"
  | "deleteNamespace"
  | "insertEntry"
  | "updateEntry"
  | "deleteEntry"
  | "deleteEntries"
>;

/** The catalog's part of the store on `client`. */
export function createSqlCatalog(client: SqlClient): SqlCatalog {
  return {
    async fetchEntries(kind, ids) {
      if (ids.length === 0) return [];
      const rows = await client.query<EntryRow>(
        `SELECT ${ENTRY_COLUMNS} FROM trestle_catalog_entries WHERE kind = $1 AND id = ANY($2::text[])`,
        [kind, [...ids]],
      );
      return rows.map(toEntry);
    },

    async fetchNamespaces(names) {
      if (names.length === 0) return [];
      const rows = await client.query<NamespaceRow>(
        `SELECT ${NAMESPACE_COLUMNS} FROM trestle_namespaces WHERE name = ANY($1::text[])`,
        [[...names]],
      );
      return rows.map(toNamespace);
    },
    async insertNamespace(namespace, now) {
      try {
        return await client.transaction(async (tx) => {
          const [row] = await tx.query<NamespaceRow>(
            `INSERT INTO trestle_namespaces (name, id, document, version, created_at, updated_at)
           VALUES ($1, $2, $3::text::jsonb, ${NEXT_VERSION}, $4, $4)
           RETURNING ${NAMESPACE_COLUMNS}`,
            [namespace.name, namespace.id, JSON.stringify(namespace.document), now],
          );
          const stored = toNamespace(row as NamespaceRow);
          await publish(tx, {
            kind: "namespace",
            op: "upsert",
            namespace: stored.name,
            id: stored.id,
            version: stored.version,
          });
          return stored;
        });
      } catch (error) {
        const db = databaseErrorOf(error);
        if (db?.code === UNIQUE_VIOLATION) {
          throw new TrestleError(
            db.constraint === "trestle_namespaces_id_key"
              ? `A namespace with id '${namespace.id}' already exists`
              : `Namespace '${namespace.name}' already exists`,
            Code.AlreadyExists,
          );
        }
        throw error;
      }
    },

    deleteNamespace(name, cascade) {
      if (name === DEFAULT_NAMESPACE) {
        return Promise.reject(
          new TrestleError("The default namespace cannot be deleted", Code.FailedPrecondition),
        );
      }
      return client.transaction(async (tx) => {
        const [row] = await tx.query<NamespaceRow>(
          `SELECT ${NAMESPACE_COLUMNS} FROM trestle_namespaces WHERE name = $1 FOR UPDATE`,
          [name],
        );
        if (!row) throw new TrestleError(`Namespace '${name}' does not exist`, Code.NotFound);
        const namespace = toNamespace(row);
        const counted = await tx.query<{ kind: EntryKind; n: number | string }>(
          "SELECT kind, count(*) AS n FROM trestle_catalog_entries WHERE namespace = $1 GROUP BY kind ORDER BY kind",
          [name],
        );
        if (counted.length > 0 && !cascade) {
          const what = counted.map((c) => `${c.n} ${c.kind}${Number(c.n) === 1 ? "" : "s"}`).join(", ");
          throw new TrestleError(
            `Namespace '${name}' is not empty (${what}); remove its entries first, or delete it with cascade`,
            Code.FailedPrecondition,
          );
        }
        const removed = await tx.query<EntryRow>(
          `DELETE FROM trestle_catalog_entries WHERE namespace = $1 RETURNING ${ENTRY_COLUMNS}`,
          [name],
        );
        const entries = removed.map(toEntry);
        const version = await nextVersion(tx);
        for (const entry of entries) await publish(tx, entryChange(entry, "delete", version));
        await tx.query("DELETE FROM trestle_namespaces WHERE name = $1", [name]);
        await publish(tx, { kind: "namespace", op: "delete", namespace: name, id: namespace.id, version });
        return { namespace: { ...namespace, version }, entries };
      });
    },

    async insertEntry(entry, now) {
      try {
        return await client.transaction(async (tx) => {
          const [row] = await tx.query<EntryRow>(
            `INSERT INTO trestle_catalog_entries (kind, namespace, key, name, id, document, version, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, ${NEXT_VERSION}, $7, $7)
           RETURNING ${ENTRY_COLUMNS}`,
            [
              entry.kind,
              entry.namespace,
              entry.key,
              entry.name,
              entry.id,
              JSON.stringify(entry.document),
              now,
            ],
          );
          const stored = toEntry(row as EntryRow);
          await publish(tx, entryChange(stored, "upsert"));
          return stored;
        });
      } catch (error) {
        throw entryWriteError(error, entry);
      }
    },

    async updateEntry(kind, namespace, key, update, options) {
      let attempted: { name: string; id: string } | undefined;
      try {
        return await client.transaction(async (tx) => {
          const [row] = await tx.query<EntryRow>(
            `SELECT ${ENTRY_COLUMNS} FROM trestle_catalog_entries
            WHERE kind = $1 AND namespace = $2 AND key = $3 FOR UPDATE`,
            [kind, namespace, key],
          );
          if (!row) throw notFound(kind, namespace, key);
          const current = toEntry(row);
          if (options.expectedVersion !== undefined && options.expectedVersion !== current.version) {
            throw new TrestleError(
              `The ${kind} ${KEY_LABEL[kind]} '${key}' in ${describeNamespace(namespace)} was changed meanwhile (version ${current.version}, expected ${options.expectedVersion}); read it again and retry`,
              Code.Aborted,
            );
          }
          const next = update(current);
          attempted = { name: next.name, id: current.id };
          const [updated] = await tx.query<EntryRow>(
            `UPDATE trestle_catalog_entries
              SET name = $4, document = $5::text::jsonb, version = ${NEXT_VERSION}, updated_at = $6
            WHERE kind = $1 AND namespace = $2 AND key = $3
            RETURNING ${ENTRY_COLUMNS}`,
            [kind, namespace, key, next.name, JSON.stringify(next.document), options.now],
          );
          const stored = toEntry(updated as EntryRow);
          await publish(tx, entryChange(stored, "upsert"));
          return stored;
        });
      } catch (error) {
        throw attempted ? entryWriteError(error, { kind, namespace, key, ...attempted }) : error;
      }
    },

    deleteEntry(kind, namespace, key) {
      return client.transaction(async (tx) => {
        const [row] = await tx.query<EntryRow>(
          `DELETE FROM trestle_catalog_entries WHERE kind = $1 AND namespace = $2 AND key = $3
         RETURNING ${ENTRY_COLUMNS}`,
          [kind, namespace, key],
        );
        if (!row) throw notFound(kind, namespace, key);
        const entry = toEntry(row);
        const version = await nextVersion(tx);
        await publish(tx, entryChange(entry, "delete", version));
        return { ...entry, version };
      });
    },

    deleteEntries(kind, namespace, select) {
      return client.transaction(async (tx) => {
        const rows = await tx.query<EntryRow>(
          `SELECT ${ENTRY_COLUMNS} FROM trestle_catalog_entries
          WHERE kind = $1 AND namespace = $2 ORDER BY key FOR UPDATE`,
          [kind, namespace],
        );
        const chosen = rows.map(toEntry).filter(select);
        if (chosen.length === 0) return [];
        await tx.query("DELETE FROM trestle_catalog_entries WHERE kind = $1 AND id = ANY($2::text[])", [
          kind,
          chosen.map((e) => e.id),
        ]);
        const version = await nextVersion(tx);
        for (const entry of chosen) await publish(tx, entryChange(entry, "delete", version));
        return chosen.map((entry) => ({ ...entry, version }));
      });
    },
  };
}
