import { Code, type HealthState, type ServiceTarget, TrestleError } from "@trestle/core";
import { claimServiceName } from "./service-name-owner.js";
import { NEXT_VERSION, nextVersion, publish } from "./sql-change-feed.js";
import type { SqlClient, SqlExecutor } from "./sql-client.js";
import type {
  HealthRecord,
  RegisteredService,
  RegistrationActor,
  RegistrationResult,
  Store,
} from "./store.js";

/** Serialises registrations, so two registrations of one endpoint cannot both insert. */
const REGISTRATION_LOCK_KEY = 7_246_413_002;
const HEALTH_HISTORY_LENGTH = 20;

/** The columns of a registered service, in the order {@link ServiceRow} reads them. */
export const SERVICE_COLUMNS =
  "id, target, health, health_message, health_changed_at, registered_at, last_seen_at, last_heartbeat_at, version, owner";

/** A registered service's row (bigints may come back as strings). */
export interface ServiceRow {
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

/** The registered service of a row. */
export function toService(row: ServiceRow): RegisteredService {
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

/**
 * Records a health state in `tx` when it differs from the stored one, with its history entry and its change.
 * @returns the service when it changed.
 */
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

/** What the store does to the service registry: registrations, their owners, health and activity. */
export type SqlServices = Pick<
  Store,
  | "fetchServices"
  | "registerService"
  | "deregisterService"
  | "recordHeartbeat"
  | "recordHealth"
  | "touchServices"
  | "markUnseenDown"
  | "removeUnseen"
  | "listServices"
  | "healthHistory"
>;

/** The service registry's part of the store on `client`. */
export function createSqlServices(client: SqlClient): SqlServices {
  return {
    async fetchServices(ids) {
      if (ids.length === 0) return [];
      const rows = await client.query<ServiceRow>(
        `SELECT ${SERVICE_COLUMNS} FROM trestle_services WHERE id = ANY($1::text[])`,
        [[...ids]],
      );
      return rows.map(toService);
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
  };
}
