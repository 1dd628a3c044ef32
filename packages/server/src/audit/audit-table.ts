import { copyTextField, type StoreSqlClient } from "@trestle/registry";
import type { AuditRecord, StoredAuditRecord } from "./audit-record.js";

/** Where each batch of audit records written is announced; the payload is the batch's highest id. */
export const AUDIT_CHANNEL = "trestle_audit";

/** The filters of an audit query; every one optional. */
export interface AuditQuery {
  /** The principal's id. */
  principal?: string;
  namespace?: string;
  /** The target: a tool, resource URI, prompt, or `engine/language`. */
  tool?: string;
  decision?: "allowed" | "denied";
  outcome?: "ok" | "isError" | "error";
  /** Records at or after this time (epoch ms). */
  since?: number;
  /** Records before this time (epoch ms). */
  until?: number;
  /** Records older than the one with this id (the previous page's `nextCursor`). */
  before?: string;
  /** At most this many records (the caller bounds it). */
  limit: number;
}

/** A row as PostgreSQL returns it. */
interface AuditRow {
  id: string | number;
  at: string | number;
  principal_id: string;
  principal_name: string;
  principal_kind: string;
  namespace: string;
  method: string;
  target: string | null;
  decision: string;
  rule: string | null;
  outcome: string | null;
  error_code: string | null;
  duration_ms: number | null;
  front: string;
  request_id: string | null;
  arguments: unknown;
}

/** The columns a record fills, in the order of {@link rowValues}. */
const INSERT_COLUMNS = [
  "at",
  "principal_id",
  "principal_name",
  "principal_kind",
  "namespace",
  "method",
  "target",
  "decision",
  "rule",
  "outcome",
  "error_code",
  "duration_ms",
  "front",
  "request_id",
  "arguments",
] as const;

/**
 * JSON text PostgreSQL's `jsonb` accepts. JSON.stringify writes NUL and lone surrogates as `\u` escapes that `jsonb`
 * refuses, which would fail the whole batch: a client could erase other principals' records by putting one in its
 * request id or arguments. Each becomes U+FFFD (an escape preceded by an even number of backslashes is one).
 */
function storableJson(value: unknown): string {
  return (JSON.stringify(value) ?? "null").replace(
    /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi,
    "$1\\ufffd",
  );
}

/** A record's values in {@link INSERT_COLUMNS}' order; its arguments as storable JSON text. */
function rowValues(r: AuditRecord): (string | number | null)[] {
  return [
    r.at,
    r.principalId,
    r.principalName,
    r.principalKind,
    r.namespace,
    r.method,
    r.target,
    r.decision,
    r.rule,
    r.outcome,
    r.errorCode,
    r.durationMs === null ? null : Math.round(r.durationMs),
    r.front,
    r.requestId,
    r.arguments === null || r.arguments === undefined ? null : storableJson(r.arguments),
  ];
}

const COLUMNS =
  "id, at, principal_id, principal_name, principal_kind, namespace, method, target, decision, rule, outcome, error_code, duration_ms, front, request_id, arguments";

function fromRow(row: AuditRow): StoredAuditRecord {
  return {
    id: String(row.id),
    at: Number(row.at),
    principalId: row.principal_id,
    principalName: row.principal_name,
    principalKind: row.principal_kind as StoredAuditRecord["principalKind"],
    namespace: row.namespace,
    method: row.method as StoredAuditRecord["method"],
    target: row.target,
    decision: row.decision as StoredAuditRecord["decision"],
    rule: row.rule,
    outcome: row.outcome as StoredAuditRecord["outcome"],
    errorCode: row.error_code,
    durationMs: row.duration_ms,
    front: row.front as StoredAuditRecord["front"],
    requestId: row.request_id,
    arguments: row.arguments ?? null,
  };
}

/** An id as the query takes it: a decimal integer, or `undefined` for one that is not (matching nothing). */
function idParameter(id: string): string | undefined {
  return /^\d{1,19}$/.test(id) ? id : undefined;
}

/**
 * The audit trail's table on the store's SQL client (the server's migrations made it): shared by the replicas.
 * Failures reject as the store's do (`Unavailable` when the database cannot be reached).
 */
export interface AuditTable {
  /** Writes `records` in one statement and announces the batch on {@link AUDIT_CHANNEL}. */
  insert(records: readonly AuditRecord[]): Promise<void>;
  /** Records matching `query`, newest first. */
  query(query: AuditQuery): Promise<StoredAuditRecord[]>;
  /** Records with an id above `afterId`, oldest first, at most `limit` (the live tail reads forward). */
  after(afterId: string, limit: number): Promise<StoredAuditRecord[]>;
  /** The highest id written so far ("0" for none). */
  lastId(): Promise<string>;
  /** Deletes up to `limit` records older than `before` (epoch ms); returns how many went. */
  deleteOlderThan(before: number, limit: number): Promise<number>;
  /** Subscribes to batches written on any replica; `onResync` when notifications may have been lost. */
  subscribe(onWritten: () => void, onResync: () => void): Promise<() => Promise<void>>;
}

/** Creates the {@link AuditTable} on `sql`. */
export function createAuditTable(sql: Pick<StoreSqlClient, "query" | "listen" | "copyRows">): AuditTable {
  return {
    async insert(records) {
      if (records.length === 0) return;
      if (sql.copyRows) {
        // The embedded store: loading by COPY costs the process about half what the INSERT below does per row.
        const lines = records.map((r) => rowValues(r).map(copyTextField).join("\t")).join("\n");
        await sql.copyRows("trestle_audit", INSERT_COLUMNS, `${lines}\n`);
        await sql.query("SELECT pg_notify($1, max(id)::text) FROM trestle_audit", [AUDIT_CHANNEL]);
        return;
      }
      // One parameter for the whole batch: the rows go as a JSON array, unpacked by the database.
      const rows = records.map((r) => {
        const values = rowValues(r);
        const row: Record<string, unknown> = {};
        for (const [i, column] of INSERT_COLUMNS.entries()) row[column] = values[i];
        return row;
      });
      await sql.query(
        `WITH inserted AS (
           INSERT INTO trestle_audit (${INSERT_COLUMNS.join(", ")})
           SELECT ${INSERT_COLUMNS.join(", ").replace("arguments", "arguments::jsonb")}
           FROM jsonb_to_recordset($1::jsonb) AS r(at bigint, principal_id text, principal_name text,
             principal_kind text, namespace text, method text, target text, decision text, rule text,
             outcome text, error_code text, duration_ms integer, front text, request_id text, arguments text)
           RETURNING id
         )
         SELECT pg_notify($2, max(id)::text) FROM inserted`,
        [storableJson(rows), AUDIT_CHANNEL],
      );
    },

    async query(q) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (clause: string, value: unknown) => {
        params.push(value);
        where.push(clause.replace("?", `$${params.length}`));
      };
      if (q.principal !== undefined) add("principal_id = ?", q.principal);
      if (q.namespace !== undefined) add("namespace = ?", q.namespace);
      if (q.tool !== undefined) add("target = ?", q.tool);
      if (q.decision !== undefined) add("decision = ?", q.decision);
      if (q.outcome !== undefined) add("outcome = ?", q.outcome);
      if (q.since !== undefined) add("at >= ?", q.since);
      if (q.until !== undefined) add("at < ?", q.until);
      if (q.before !== undefined) {
        const id = idParameter(q.before);
        if (id === undefined) return [];
        add("id < ?::bigint", id);
      }
      params.push(q.limit);
      const rows = await sql.query<AuditRow>(
        `SELECT ${COLUMNS} FROM trestle_audit ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY id DESC LIMIT $${params.length}`,
        params,
      );
      return rows.map(fromRow);
    },

    async after(afterId, limit) {
      const id = idParameter(afterId) ?? "0";
      const rows = await sql.query<AuditRow>(
        `SELECT ${COLUMNS} FROM trestle_audit WHERE id > $1::bigint ORDER BY id ASC LIMIT $2`,
        [id, limit],
      );
      return rows.map(fromRow);
    },

    async lastId() {
      const rows = await sql.query<{ last: string | number | null }>(
        "SELECT max(id) AS last FROM trestle_audit",
        [],
      );
      return String(rows[0]?.last ?? "0");
    },

    async deleteOlderThan(before, limit) {
      const rows = await sql.query<{ id: string }>(
        `DELETE FROM trestle_audit WHERE id IN (SELECT id FROM trestle_audit WHERE at < $1 LIMIT $2)
         RETURNING id`,
        [before, limit],
      );
      return rows.length;
    },

    subscribe(onWritten, onResync) {
      return sql.listen(AUDIT_CHANNEL, () => onWritten(), onResync);
    },
  };
}
