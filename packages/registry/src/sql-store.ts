import { Code, type HealthState, type ServiceTarget, TrestleError } from "@trestle/core";
import { DEFAULT_NAMESPACE, describeNamespace } from "./namespace-name.js";
import { claimServiceName } from "./service-name-owner.js";
import type { SqlClient, SqlExecutor } from "./sql-client.js";
import {
  connectionFailureOf,
  databaseErrorOf,
  FOREIGN_KEY_VIOLATION,
  UNIQUE_VIOLATION,
} from "./sql-errors.js";
import type {
  EntryKind,
  HealthRecord,
  McpTaskRequests,
  RegisteredService,
  RegistrationActor,
  RegistrationResult,
  Store,
  StoreChange,
  StoredA2aTask,
  StoredEntry,
  StoredMcpTask,
  StoredNamespace,
} from "./store.js";

/** The NOTIFY channel that carries {@link StoreChange}s. */
export const CHANGE_CHANNEL = "trestle_changes";
/** Where ended MCP sessions are announced: each notification's payload is the session's digest. */
export const ENDED_SESSION_CHANNEL = "trestle_ended_mcp_sessions";
/** Serialises registrations, so two registrations of one endpoint cannot both insert. */
const REGISTRATION_LOCK_KEY = 7_246_413_002;
const HEALTH_HISTORY_LENGTH = 20;

const ENTRY_COLUMNS = "kind, namespace, key, name, id, document, version, created_at, updated_at";
const NAMESPACE_COLUMNS = "name, id, document, version, created_at, updated_at";
const SERVICE_COLUMNS =
  "id, target, health, health_message, health_changed_at, registered_at, last_seen_at, last_heartbeat_at, version, owner";

const NEXT_VERSION = "nextval('trestle_change_version')";

interface EntryRow {
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

interface NamespaceRow {
  name: string;
  id: string;
  document: Record<string, unknown>;
  version: number | string;
  created_at: number | string;
  updated_at: number | string;
}

interface ServiceRow {
  id: string;
  target: ServiceTarget;
  health: HealthState;
  health_message: string | null;
  health_changed_at: number | string;
  registered_at: number | string;
  last_seen_at: number | string;
  last_heartbeat_at: number | string | null;
  version: number | string;
  owner: string | null;
}

function toEntry(row: EntryRow): StoredEntry {
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

function toNamespace(row: NamespaceRow): StoredNamespace {
  return {
    name: row.name,
    id: row.id,
    document: row.document,
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toService(row: ServiceRow): RegisteredService {
  const service: RegisteredService = {
    id: row.id,
    target: { ...row.target, id: row.id },
    health: row.health,
    healthChangedAt: Number(row.health_changed_at),
    registeredAt: Number(row.registered_at),
    lastSeenAt: Number(row.last_seen_at),
    version: Number(row.version),
  };
  if (row.health_message !== null) service.healthMessage = row.health_message;
  if (row.last_heartbeat_at !== null) service.lastHeartbeatAt = Number(row.last_heartbeat_at);
  if (row.owner !== null && row.owner !== undefined) service.registeredBy = row.owner;
  return service;
}

/** True when `actor` may change a registration bound to `owner` (null: bound to no one yet). */
function mayChange(owner: string | null | undefined, actor: RegistrationActor | undefined): boolean {
  return (
    actor === undefined || actor.admin || owner === null || owner === undefined || owner === actor.principal
  );
}

function notYours(what: string): TrestleError {
  return new TrestleError(
    `${what} was registered with another credential; only that credential (or an admin token) may change it`,
    Code.PermissionDenied,
  );
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

async function publish(tx: SqlExecutor, change: StoreChange): Promise<void> {
  await tx.query("SELECT pg_notify($1, $2)", [CHANGE_CHANNEL, JSON.stringify(change)]);
}

function entryChange(entry: StoredEntry, op: "upsert" | "delete", version = entry.version): StoreChange {
  return { kind: entry.kind, op, namespace: entry.namespace, key: entry.key, id: entry.id, version };
}

/**
 * Refuses a change to the registration `id` by an `actor` it is not bound to (row locked until the
 * transaction ends). An unknown id passes: the caller's own statement then reports it.
 */
async function checkOwner(tx: SqlExecutor, id: string, actor: RegistrationActor | undefined): Promise<void> {
  if (actor === undefined || actor.admin) return;
  const [row] = await tx.query<{ owner: string | null }>(
    "SELECT owner FROM trestle_services WHERE id = $1 FOR UPDATE",
    [id],
  );
  if (row && !mayChange(row.owner, actor)) throw notYours(`The service instance '${id}'`);
}

async function nextVersion(tx: SqlExecutor): Promise<number> {
  const [row] = await tx.query<{ v: number | string }>(`SELECT ${NEXT_VERSION} AS v`);
  return Number(row?.v);
}

async function appendHealthHistory(tx: SqlExecutor, service: RegisteredService): Promise<void> {
  await tx.query(
    `INSERT INTO trestle_service_health_history (service_id, seq, at, state, message) VALUES ($1, $2, $3, $4, $5)`,
    [service.id, service.version, service.healthChangedAt, service.health, service.healthMessage ?? null],
  );
  await tx.query(
    `DELETE FROM trestle_service_health_history WHERE service_id = $1 AND seq NOT IN (
       SELECT seq FROM trestle_service_health_history WHERE service_id = $1 ORDER BY seq DESC LIMIT $2)`,
    [service.id, HEALTH_HISTORY_LENGTH],
  );
}

/** Store methods that only read; every other one writes (or, like `subscribe`, starts listening). */
const READ_METHODS = new Set([
  "isMcpSessionEnded",
  "mcpSessionsEndedSince",
  "loadSnapshot",
  "fetchEntries",
  "fetchNamespaces",
  "fetchServices",
  "listServices",
  "healthHistory",
]);

/**
 * The store with every connection-level failure (database down, connection lost or refused, server shutting
 * down) turned into a `TrestleError` `Unavailable` whose message names the store and says that nothing was
 * saved, instead of the driver's text (which names hosts and ports and means nothing to an API client). Other
 * errors pass unchanged; the driver's error stays as the `cause`, for logs.
 */
function withConnectionErrors(store: Store): Store {
  const database = store.backend === "postgres" ? "PostgreSQL" : "embedded PGlite";
  const guarded: Record<string, unknown> = { ...store };
  for (const [name, value] of Object.entries(store)) {
    if (typeof value !== "function" || name === "close") continue;
    const method = value as (...args: unknown[]) => unknown;
    const mapped = (error: unknown): unknown => {
      const failure = connectionFailureOf(error);
      if (failure === undefined) return error;
      const outcome = READ_METHODS.has(name) ? "nothing could be read" : "the change was not saved";
      return new TrestleError(
        `The catalog store (${database}) is unavailable (${failure}); ${outcome}. Try again once the database is reachable`,
        Code.Unavailable,
        { cause: error },
      );
    };
    guarded[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(store, args);
      } catch (error) {
        throw mapped(error);
      }
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw mapped(error);
          })
        : result;
    };
  }
  return guarded as unknown as Store;
}

/**
 * Creates the {@link Store} on a {@link SqlClient}, whose schema {@link applyMigrations} has brought up to
 * date. The SQL is the same for PGlite and PostgreSQL.
 */
interface A2aTaskRow {
  id: string;
  namespace: string;
  principal: string;
  context_id: string;
  state: string;
  document: Record<string, unknown> | string;
  updated_at: string | number;
}

function a2aTaskFromRow(row: A2aTaskRow): StoredA2aTask {
  return {
    id: row.id,
    namespace: row.namespace,
    principal: row.principal,
    contextId: row.context_id,
    state: row.state,
    document:
      typeof row.document === "string" ? (JSON.parse(row.document) as Record<string, unknown>) : row.document,
    updatedAt: Number(row.updated_at),
  };
}

interface McpTaskRow {
  id: string;
  namespace: string;
  principal: string;
  status: string;
  document: Record<string, unknown> | string;
  created_at: string | number;
  expires_at: string | number;
}

const parsedJson = <T>(value: T | string): T =>
  typeof value === "string" ? (JSON.parse(value) as T) : value;

function mcpTaskFromRow(row: McpTaskRow): StoredMcpTask {
  return {
    id: row.id,
    namespace: row.namespace,
    principal: row.principal,
    status: row.status,
    document: parsedJson(row.document),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

export function createSqlStore(client: SqlClient): Store {
  async function recordHealthIn(
    tx: SqlExecutor,
    id: string,
    state: HealthState,
    message: string | undefined,
    now: number,
  ): Promise<RegisteredService | undefined> {
    const rows = await tx.query<ServiceRow>(
      `UPDATE trestle_services
          SET health = $2, health_message = $3, health_changed_at = $4, version = ${NEXT_VERSION},
              last_seen_at = CASE WHEN $2 = 'down' THEN last_seen_at ELSE GREATEST(last_seen_at, $4) END
        WHERE id = $1 AND health <> $2
        RETURNING ${SERVICE_COLUMNS}`,
      [id, state, message ?? null, now],
    );
    const row = rows[0];
    if (!row) return undefined;
    const service = toService(row);
    await appendHealthHistory(tx, service);
    await publish(tx, { kind: "service", op: "upsert", id, version: service.version });
    return service;
  }

  return withConnectionErrors({
    backend: client.backend,

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

    async fetchServices(ids) {
      if (ids.length === 0) return [];
      const rows = await client.query<ServiceRow>(
        `SELECT ${SERVICE_COLUMNS} FROM trestle_services WHERE id = ANY($1::text[])`,
        [[...ids]],
      );
      return rows.map(toService);
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

    registerService(input, now): Promise<RegistrationResult> {
      return client.transaction(async (tx) => {
        await tx.query("SELECT pg_advisory_xact_lock($1)", [REGISTRATION_LOCK_KEY]);
        let existing: { service: RegisteredService; endpoint: string } | undefined;
        if (input.requestedId !== undefined) {
          const [row] = await tx.query<ServiceRow & { endpoint: string }>(
            `SELECT ${SERVICE_COLUMNS}, endpoint FROM trestle_services WHERE id = $1 FOR UPDATE`,
            [input.requestedId],
          );
          if (row) existing = { service: toService(row), endpoint: row.endpoint };
        }
        const [sameEndpointRow] = await tx.query<ServiceRow>(
          `SELECT ${SERVICE_COLUMNS} FROM trestle_services WHERE endpoint = $1 FOR UPDATE`,
          [input.endpoint],
        );
        const sameEndpoint = sameEndpointRow ? toService(sameEndpointRow) : undefined;
        const replaced: RegisteredService[] = [];
        let replacing: RegisteredService | undefined;
        if (sameEndpoint && input.requestedId === undefined) {
          // A capability that lost its id but serves the same endpoint is the same registration.
          existing = { service: sameEndpoint, endpoint: input.endpoint };
        } else if (sameEndpoint && sameEndpoint.id !== input.requestedId) {
          replacing = sameEndpoint;
        }
        // Every check runs before anything is written, under the registration lock, so that replicas agree.
        const { actor } = input;
        // The principal the configuration binds the name to holds it whoever registered its instances before.
        const configured = input.configuredOwner !== undefined && input.configuredOwner === actor.principal;
        const may = (owner: string | undefined | null) => configured || mayChange(owner, actor);
        if (existing && !may(existing.service.registeredBy))
          throw notYours(`The service instance '${existing.service.id}'`);
        if (replacing && !may(replacing.registeredBy))
          throw notYours(`The service instance '${replacing.id}' at this endpoint`);
        const sameName = await tx.query<{ id: string; owner: string | null }>(
          `SELECT id, owner FROM trestle_services WHERE target ->> 'serviceName' = $1`,
          [input.target.serviceName],
        );
        const others = sameName.filter((r) => r.id !== existing?.service.id && r.id !== replacing?.id);
        if (others.some((r) => !may(r.owner)))
          throw notYours(`The service name '${input.target.serviceName}'`);
        if (
          !existing &&
          input.maxInstancesPerService !== undefined &&
          others.length >= input.maxInstancesPerService
        ) {
          throw new TrestleError(
            `The service '${input.target.serviceName}' has ${others.length} registered instances, the most allowed (maxInstancesPerService); deregister one first`,
            Code.FailedPrecondition,
          );
        }
        await claimServiceName(tx, input.target.serviceName, actor, input.configuredOwner, now);
        if (replacing) {
          await tx.query("DELETE FROM trestle_services WHERE id = $1", [replacing.id]);
          replaced.push(replacing);
        }
        const id = existing?.service.id ?? input.requestedId ?? input.newId;
        const target = JSON.stringify({ ...input.target, id });
        let service: RegisteredService;
        if (existing) {
          // A service that moved is a new process somewhere else, and one that was down registers because it
          // runs again: either waits for a probe again, as a new registration does.
          const reset = existing.endpoint !== input.endpoint || existing.service.health === "down";
          const [row] = await tx.query<ServiceRow>(
            `UPDATE trestle_services
                SET endpoint = $2, target = $3::text::jsonb, last_seen_at = GREATEST(last_seen_at, $4),
                    version = ${NEXT_VERSION},
                    health = CASE WHEN $5 THEN 'pending' ELSE health END,
                    health_message = CASE WHEN $5 THEN NULL ELSE health_message END,
                    health_changed_at = CASE WHEN $5 THEN $4 ELSE health_changed_at END,
                    owner = COALESCE(owner, $6)
              WHERE id = $1
              RETURNING ${SERVICE_COLUMNS}`,
            [id, input.endpoint, target, now, reset, actor.principal],
          );
          service = toService(row as ServiceRow);
          if (reset) await appendHealthHistory(tx, service);
        } else {
          const [row] = await tx.query<ServiceRow>(
            `INSERT INTO trestle_services
               (id, endpoint, target, health, health_message, health_changed_at, registered_at, last_seen_at, version, owner)
             VALUES ($1, $2, $3::text::jsonb, 'pending', NULL, $4, $4, $4, ${NEXT_VERSION}, $5)
             RETURNING ${SERVICE_COLUMNS}`,
            [id, input.endpoint, target, now, actor.principal],
          );
          service = toService(row as ServiceRow);
          await appendHealthHistory(tx, service);
        }
        for (const gone of replaced) {
          await publish(tx, { kind: "service", op: "delete", id: gone.id, version: service.version });
        }
        await publish(tx, { kind: "service", op: "upsert", id, version: service.version });
        return { service, created: existing === undefined, replaced };
      });
    },

    deregisterService(id, actor) {
      return client.transaction(async (tx) => {
        await checkOwner(tx, id, actor);
        const [row] = await tx.query<ServiceRow>(
          `DELETE FROM trestle_services WHERE id = $1 RETURNING ${SERVICE_COLUMNS}`,
          [id],
        );
        if (!row) throw new TrestleError(`No service is registered with id '${id}'`, Code.NotFound);
        const version = await nextVersion(tx);
        await publish(tx, { kind: "service", op: "delete", id, version });
        return { ...toService(row), version };
      });
    },

    recordHeartbeat(id, now, markHealthy, actor) {
      return client.transaction(async (tx) => {
        await checkOwner(tx, id, actor);
        const [row] = await tx.query<ServiceRow>(
          `UPDATE trestle_services SET last_heartbeat_at = $2, last_seen_at = GREATEST(last_seen_at, $2)
            WHERE id = $1 RETURNING ${SERVICE_COLUMNS}`,
          [id, now],
        );
        if (!row) {
          throw new TrestleError(
            `No service is registered with id '${id}'; register it again`,
            Code.NotFound,
          );
        }
        const service = toService(row);
        if (markHealthy && service.health !== "healthy") {
          return (await recordHealthIn(tx, id, "healthy", "It sends heartbeats", now)) ?? service;
        }
        return service;
      });
    },

    recordHealth(id, state, message, now) {
      return client.transaction((tx) => recordHealthIn(tx, id, state, message, now));
    },

    async touchServices(ids, now) {
      if (ids.length === 0) return;
      await client.query(
        "UPDATE trestle_services SET last_seen_at = GREATEST(last_seen_at, $2) WHERE id = ANY($1::text[])",
        [[...ids], now],
      );
    },

    async markUnseenDown(seenBefore, now) {
      // Most sweeps find nothing: one read then, rather than a transaction that writes nothing. A service that
      // goes silent between the read and the next sweep is found by that sweep.
      const silent = await client.query(
        "SELECT 1 FROM trestle_services WHERE last_seen_at < $1 AND health <> 'down' LIMIT 1",
        [seenBefore],
      );
      if (silent.length === 0) return [];
      return client.transaction(async (tx) => {
        const rows = await tx.query<ServiceRow>(
          `UPDATE trestle_services
              SET health = 'down', health_message = $3, health_changed_at = $2, version = ${NEXT_VERSION}
            WHERE last_seen_at < $1 AND health <> 'down'
            RETURNING ${SERVICE_COLUMNS}`,
          [seenBefore, now, "No heartbeat, registration or probe answer within the heartbeat timeout"],
        );
        const services = rows.map(toService);
        for (const service of services) {
          await appendHealthHistory(tx, service);
          await publish(tx, { kind: "service", op: "upsert", id: service.id, version: service.version });
        }
        return services;
      });
    },

    async removeUnseen(seenBefore) {
      // As for markUnseenDown: a read first, a transaction only when there is something to remove.
      const stale = await client.query("SELECT 1 FROM trestle_services WHERE last_seen_at < $1 LIMIT 1", [
        seenBefore,
      ]);
      if (stale.length === 0) return [];
      return client.transaction(async (tx) => {
        const rows = await tx.query<ServiceRow>(
          `DELETE FROM trestle_services WHERE last_seen_at < $1 RETURNING ${SERVICE_COLUMNS}`,
          [seenBefore],
        );
        if (rows.length === 0) return [];
        const version = await nextVersion(tx);
        const services = rows.map((row) => ({ ...toService(row), version }));
        for (const service of services)
          await publish(tx, { kind: "service", op: "delete", id: service.id, version });
        return services;
      });
    },

    async listServices() {
      const rows = await client.query<ServiceRow>(
        `SELECT ${SERVICE_COLUMNS} FROM trestle_services ORDER BY registered_at, id`,
      );
      return rows.map(toService);
    },

    async healthHistory(id, limit = HEALTH_HISTORY_LENGTH) {
      const rows = await client.query<{ at: number | string; state: HealthState; message: string | null }>(
        "SELECT at, state, message FROM trestle_service_health_history WHERE service_id = $1 ORDER BY seq DESC LIMIT $2",
        [id, limit],
      );
      return rows.map((r) => {
        const record: HealthRecord = { at: Number(r.at), state: r.state };
        if (r.message !== null) record.message = r.message;
        return record;
      });
    },

    async claimLease(name, owner, now, ttlMs) {
      const rows = await client.query(
        `INSERT INTO trestle_leases (name, owner, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
          WHERE trestle_leases.owner = EXCLUDED.owner OR trestle_leases.expires_at < $4
         RETURNING owner`,
        [name, owner, now + ttlMs, now],
      );
      return rows.length > 0;
    },

    async releaseLease(name, owner) {
      await client.query("DELETE FROM trestle_leases WHERE name = $1 AND owner = $2", [name, owner]);
    },

    async saveA2aTask(task, now) {
      // Another owner's row of the same id is never taken over: the update applies only to the owner's own.
      const rows = await client.query<{ id: string }>(
        `INSERT INTO trestle_a2a_tasks (id, namespace, principal, context_id, state, document, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT (id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state,
           document = EXCLUDED.document, updated_at = EXCLUDED.updated_at
         WHERE trestle_a2a_tasks.principal = EXCLUDED.principal AND trestle_a2a_tasks.namespace = EXCLUDED.namespace
         RETURNING id`,
        [
          task.id,
          task.namespace,
          task.principal,
          task.contextId,
          task.state,
          JSON.stringify(task.document),
          now,
        ],
      );
      return rows.length > 0;
    },

    async loadA2aTask(id) {
      const rows = await client.query<A2aTaskRow>(
        `SELECT id, namespace, principal, context_id, state, document, updated_at FROM trestle_a2a_tasks
         WHERE id = $1`,
        [id],
      );
      return rows[0] ? a2aTaskFromRow(rows[0]) : undefined;
    },

    async listA2aTasks(namespace, principal, options) {
      const rows = options.contextId
        ? await client.query<A2aTaskRow>(
            `SELECT id, namespace, principal, context_id, state, document, updated_at FROM trestle_a2a_tasks
             WHERE namespace = $1 AND principal = $2 AND context_id = $3 ORDER BY updated_at DESC LIMIT $4`,
            [namespace, principal, options.contextId, options.limit],
          )
        : await client.query<A2aTaskRow>(
            `SELECT id, namespace, principal, context_id, state, document, updated_at FROM trestle_a2a_tasks
             WHERE namespace = $1 AND principal = $2 ORDER BY updated_at DESC LIMIT $3`,
            [namespace, principal, options.limit],
          );
      return rows.map(a2aTaskFromRow);
    },

    async countA2aTasks(principal, updatedSince) {
      const rows = await client.query<{ count: string | number }>(
        "SELECT count(*) AS count FROM trestle_a2a_tasks WHERE principal = $1 AND updated_at >= $2",
        [principal, updatedSince],
      );
      return Number(rows[0]?.count ?? 0);
    },

    async saveMcpTask(task, now) {
      await client.query(
        `INSERT INTO trestle_mcp_tasks (id, namespace, principal, status, document, created_at, updated_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, document = EXCLUDED.document,
           updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at`,
        [
          task.id,
          task.namespace,
          task.principal,
          task.status,
          JSON.stringify(task.document),
          task.createdAt,
          now,
          task.expiresAt,
        ],
      );
    },

    async loadMcpTask(id, now) {
      const rows = await client.query<McpTaskRow>(
        `SELECT id, namespace, principal, status, document, created_at, expires_at FROM trestle_mcp_tasks
         WHERE id = $1 AND expires_at > $2`,
        [id, now],
      );
      return rows[0] ? mcpTaskFromRow(rows[0]) : undefined;
    },

    async requestMcpTask(id, requests) {
      const rows = await client.query<{ id: string }>(
        `UPDATE trestle_mcp_tasks SET requests = jsonb_build_object(
           'cancel', coalesce((requests ->> 'cancel')::boolean, false) OR $2::boolean,
           'inputResponses', coalesce(requests -> 'inputResponses', '{}'::jsonb) || $3::jsonb)
         WHERE id = $1 RETURNING id`,
        [id, requests.cancel === true, JSON.stringify(requests.inputResponses ?? {})],
      );
      return rows.length > 0;
    },

    async takeMcpTaskRequests(id) {
      const rows = await client.query<{ requests: McpTaskRequests | string }>(
        `WITH taken AS (SELECT id, requests FROM trestle_mcp_tasks WHERE id = $1 FOR UPDATE)
         UPDATE trestle_mcp_tasks AS t SET requests = '{}'::jsonb FROM taken WHERE t.id = taken.id
         RETURNING taken.requests`,
        [id],
      );
      const taken = rows[0] ? parsedJson(rows[0].requests) : {};
      const out: McpTaskRequests = {};
      if (taken.cancel) out.cancel = true;
      if (taken.inputResponses && Object.keys(taken.inputResponses).length > 0) {
        out.inputResponses = taken.inputResponses;
      }
      return out;
    },

    async removeExpiredMcpTasks(now) {
      const rows = await client.query<{ id: string }>(
        "DELETE FROM trestle_mcp_tasks WHERE expires_at <= $1 RETURNING id",
        [now],
      );
      return rows.length;
    },

    async countMcpTasks(principal, now) {
      const rows = await client.query<{ count: string | number }>(
        "SELECT count(*) AS count FROM trestle_mcp_tasks WHERE principal = $1 AND expires_at > $2",
        [principal, now],
      );
      return Number(rows[0]?.count ?? 0);
    },

    async removeA2aTasks(updatedBefore) {
      const rows = await client.query<{ id: string }>(
        "DELETE FROM trestle_a2a_tasks WHERE updated_at < $1 RETURNING id",
        [updatedBefore],
      );
      return rows.length;
    },

    async endMcpSession(digest, endedAt, expiresAt) {
      // One statement, its own transaction: one round trip for the client's DELETE that waits on it, where a
      // transaction of three took five (on the embedded store each costs about as much as this whole statement).
      // Its data-modifying parts run whether or not the SELECT reads them; the notification leaves at commit.
      await client.query(
        `WITH recorded AS (
           INSERT INTO trestle_ended_mcp_sessions (digest, ended_at, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (digest) DO NOTHING
         ), expired AS (
           DELETE FROM trestle_ended_mcp_sessions WHERE expires_at <= $2
         )
         SELECT pg_notify($4, $1)`,
        [digest, endedAt, expiresAt, ENDED_SESSION_CHANNEL],
      );
    },

    async isMcpSessionEnded(digest, now) {
      const rows = await client.query<{ digest: string }>(
        "SELECT digest FROM trestle_ended_mcp_sessions WHERE digest = $1 AND expires_at > $2",
        [digest, now],
      );
      return rows.length > 0;
    },

    async mcpSessionsEndedSince(since) {
      const rows = await client.query<{ digest: string }>(
        "SELECT digest FROM trestle_ended_mcp_sessions WHERE ended_at >= $1",
        [since],
      );
      return rows.map((row) => row.digest);
    },

    subscribeEndedMcpSessions(onEnded, onResync) {
      return client.listen(ENDED_SESSION_CHANNEL, onEnded, onResync);
    },

    subscribe(onChange, onResync) {
      return client.listen(
        CHANGE_CHANNEL,
        (payload) => {
          let change: StoreChange;
          try {
            change = JSON.parse(payload) as StoreChange;
          } catch {
            // Someone else's NOTIFY on our channel: notifications lost to us, so resynchronise.
            onResync();
            return;
          }
          onChange(change);
        },
        onResync,
      );
    },

    close() {
      return client.close();
    },
  });
}
