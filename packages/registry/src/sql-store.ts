import { lentSqlClient, withConnectionErrors } from "./connection-errors.js";
import {
  createSqlCatalog,
  ENTRY_COLUMNS,
  type EntryRow,
  NAMESPACE_COLUMNS,
  type NamespaceRow,
  toEntry,
  toNamespace,
} from "./sql-catalog.js";
import { subscribeToChanges } from "./sql-change-feed.js";
import type { SqlClient } from "./sql-client.js";
import { createSqlLeases } from "./sql-leases.js";
import { createSqlServices, SERVICE_COLUMNS, type ServiceRow, toService } from "./sql-services.js";
import type { Store } from "./store.js";

/** Store methods that only read; every other one writes (or, like `subscribe`, starts listening). */
const READ_METHODS: ReadonlySet<string> = new Set([
  "loadSnapshot",
  "fetchEntries",
  "fetchNamespaces",
  "fetchServices",
  "listServices",
  "healthHistory",
]);

/**
 * Creates the {@link Store} on a {@link SqlClient}, whose schema the registry's migrations have brought up to
 * date: the catalog, the service registry and the leases, each its own module, on the change feed. The SQL is the
 * same for PGlite and PostgreSQL. Every connection-level failure rejects as a `TrestleError` `Unavailable` that
 * names the store and says that nothing was read or saved (see `withConnectionErrors`); `sql` lends the client to
 * another owner of state on the same database, its failures mapped alike.
 */
export function createSqlStore(client: SqlClient): Store {
  const store: Store = {
    backend: client.backend,
    sql: lentSqlClient(client),

    loadSnapshot() {
      return client.transaction(async (tx) => {
        // One snapshot for all three reads, so the views start from a consistent state.
        await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        const namespaces = await tx.query<NamespaceRow>(
          `SELECT ${NAMESPACE_COLUMNS} FROM trestle_namespaces`,
        );
        const entries = await tx.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM trestle_catalog_entries`);
        const services = await tx.query<ServiceRow>(`SELECT ${SERVICE_COLUMNS} FROM trestle_services`);
        return {
          namespaces: namespaces.map(toNamespace),
          entries: entries.map(toEntry),
          services: services.map(toService),
        };
      });
    },
    ...createSqlCatalog(client),
    ...createSqlServices(client),
    ...createSqlLeases(client),

    subscribe(onChange, onResync) {
      return subscribeToChanges(client, onChange, onResync);
    },

    close() {
      return client.close();
    },
  };
  return withConnectionErrors(store, client.backend, (method) =>
    READ_METHODS.has(method) ? "read" : "write",
  );
}
