import type { StoreSqlClient } from "@trestle/registry";
import type { AuditRecord, StoredAuditRecord } from "./audit-record.js";

/** Where each batch of audit records written is announced; the payload is the batch's id. */
export const AUDIT_CHANNEL = "trestle_audit";

/**
 * Records one batch holds at most. A record's id is its batch's id times this, plus its index in the batch: ids
 * increase as before and stay decimal integers, and a cursor names a batch and a place in it.
 */
export const RECORDS_PER_BATCH = 1000;

/**
 * Records one query reads at most before it answers. A filter that matches few records answers what it found by
 * then, with a cursor to go on from where it stopped, rather than reading the whole trail in one request.
 */
export const MAX_RECORDS_SCANNED = 20_000;

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

/** One page of an audit query. */
export interface AuditPage {
  /** Newest first. */
  records: StoredAuditRecord[];
  /**
   * Where the next (older) page starts; `null` when nothing older matches. A page can hold fewer records than its
   * limit, even none, and still have one: the query stopped at {@link MAX_RECORDS_SCANNED}.
   */
  nextCursor: string | null;
}

/**
 * A record as a batch stores it: its fields in this order, a JSON array (a third the size of an object).
 * Filters read it by index: {@link Field}.
 */
type StoredFields = [
  at: number,
  principalId: string,
  principalName: string,
  principalKind: string,
  namespace: string,
  method: string,
  target: string | null,
  decision: string,
  rule: string | null,
  outcome: string | null,
  errorCode: string | null,
  durationMs: number | null,
  front: string,
  requestId: string | null,
  args: unknown,
];

/** Where each field sits in {@link StoredFields}. */
const Field = {
  at: 0,
  principalId: 1,
  principalName: 2,
  principalKind: 3,
  namespace: 4,
  method: 5,
  target: 6,
  decision: 7,
  rule: 8,
  outcome: 9,
  errorCode: 10,
  durationMs: 11,
  front: 12,
  requestId: 13,
  args: 14,
} as const;

function storedFields(r: AuditRecord): StoredFields {
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
    r.arguments ?? null,
  ];
}

function fromStored(id: string, f: StoredFields): StoredAuditRecord {
  return {
    id,
    at: f[0],
    principalId: f[1],
    principalName: f[2],
    principalKind: f[3] as StoredAuditRecord["principalKind"],
    namespace: f[4],
    method: f[5] as StoredAuditRecord["method"],
    target: f[6],
    decision: f[7] as StoredAuditRecord["decision"],
    rule: f[8],
    outcome: f[9] as StoredAuditRecord["outcome"],
    errorCode: f[10],
    durationMs: f[11],
    front: f[12] as StoredAuditRecord["front"],
    requestId: f[13],
    arguments: f[14],
  };
}

/**
 * JSON text that PostgreSQL's `jsonb` also accepts (the migration from the row-per-record layout reads it so).
 * JSON.stringify writes NUL and lone surrogates as `\u` escapes that `jsonb` refuses; each becomes U+FFFD, so every
 * reader sees the same text (an escape preceded by an even number of backslashes is one).
 */
function storableJson(value: unknown): string {
  return (JSON.stringify(value) ?? "null").replace(
    /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi,
    "$1\\ufffd",
  );
}

/** A batch row as the database returns it (`bigint` columns come as strings from PostgreSQL). */
interface BatchRow {
  id: string | number;
  records: string | number;
  body: string;
}

/** A record id taken apart: its batch and its index there. */
interface RecordPlace {
  batch: bigint;
  index: number;
}

/** A cursor or record id as a place, or `undefined` for text that is not a decimal integer (matching nothing). */
function placeOf(id: string): RecordPlace | undefined {
  if (!/^\d{1,19}$/.test(id)) return undefined;
  const value = BigInt(id);
  const perBatch = BigInt(RECORDS_PER_BATCH);
  return { batch: value / perBatch, index: Number(value % perBatch) };
}

/**
 * A batch's body as written: each text of its records' string fields once, in `strings`, and each record as
 * {@link StoredFields} with those fields as indexes there and `at` as an offset from the body's `at`. The texts of a
 * batch repeat (a principal, a tool, `tools/call`, `allowed`): written once each, a record is a third of its size, and
 * the store's work for a batch is mostly its bytes. A batch moved from the row-per-record layout is a plain array of
 * {@link StoredFields} (the migration's SQL writes it so); {@link decodeBatch} reads both.
 */
interface PackedBatch {
  at: number;
  strings: string[];
  records: unknown[][];
}

/**
 * The fields of {@link StoredFields} written as indexes into a {@link PackedBatch}'s strings (or null): the texts
 * that repeat from record to record (not the request id, which is each call's own).
 */
const PACKED_FIELDS = [
  Field.principalId,
  Field.principalName,
  Field.principalKind,
  Field.namespace,
  Field.method,
  Field.target,
  Field.decision,
  Field.rule,
  Field.outcome,
  Field.errorCode,
  Field.front,
] as const;

/** `records`' body as stored: a {@link PackedBatch} made JSON that PostgreSQL's `jsonb` also accepts. */
function packBatch(records: readonly AuditRecord[], first: number): string {
  const strings: string[] = [];
  const indexes = new Map<string, number>();
  const packed: unknown[][] = [];
  for (const r of records) {
    const fields: unknown[] = storedFields(r);
    fields[Field.at] = r.at - first;
    for (const field of PACKED_FIELDS) {
      const text = fields[field] as string | null;
      if (text === null) continue;
      let index = indexes.get(text);
      if (index === undefined) {
        index = strings.length;
        strings.push(text);
        indexes.set(text, index);
      }
      fields[field] = index;
    }
    packed.push(fields);
  }
  return storableJson({ at: first, strings, records: packed } satisfies PackedBatch);
}

/** A batch row's id and its records as stored, oldest first. */
function decodeBatch(row: BatchRow): { batch: bigint; stored: StoredFields[] } {
  const body = JSON.parse(row.body) as StoredFields[] | PackedBatch;
  if (Array.isArray(body)) return { batch: BigInt(row.id), stored: body };
  const stored = body.records.map((fields) => {
    fields[Field.at] = body.at + (fields[Field.at] as number);
    for (const field of PACKED_FIELDS) {
      const index = fields[field] as number | null;
      if (index !== null) fields[field] = body.strings[index];
    }
    return fields as StoredFields;
  });
  return { batch: BigInt(row.id), stored };
}

function recordId(batch: bigint, index: number): string {
  return String(batch * BigInt(RECORDS_PER_BATCH) + BigInt(index));
}

/** Batches one statement of a query or a tail reads. */
const BATCHES_PER_READ = 20;

/**
 * The audit trail's table on the store's SQL client (the server's migrations made it): shared by the replicas.
 * Records are stored a batch to a row, as written, so a call costs the store a share of one row instead of a row and
 * its index entries; the principals of a batch are a column, so a query by principal reads only their batches.
 * Failures reject as the store's do (`Unavailable` when the database cannot be reached).
 */
export interface AuditTable {
  /** Writes `records` (a batch; split in {@link RECORDS_PER_BATCH}) and announces it on {@link AUDIT_CHANNEL}. */
  insert(records: readonly AuditRecord[]): Promise<void>;
  /** A page of records matching `query`, newest first. */
  query(query: AuditQuery): Promise<AuditPage>;
  /** Records with an id above `afterId`, oldest first, at most `limit` (the live tail reads forward). */
  after(afterId: string, limit: number): Promise<StoredAuditRecord[]>;
  /** The highest id written so far ("0" for none). */
  lastId(): Promise<string>;
  /** Deletes up to `limit` batches whose records are all older than `before` (epoch ms); returns how many went. */
  deleteOlderThan(before: number, limit: number): Promise<number>;
  /**
   * Moves up to `limit` records a router of the row-per-record layout wrote (during a rolling upgrade) into
   * batches; returns how many moved.
   */
  adoptRowRecords(limit: number): Promise<number>;
  /** Subscribes to batches written on any replica; `onResync` when notifications may have been lost. */
  subscribe(onWritten: () => void, onResync: () => void): Promise<() => Promise<void>>;
}

/** Whether stored `f` passes `q`'s filters (the principal and times are also narrowed by the batch's columns). */
function matches(q: AuditQuery, f: StoredFields): boolean {
  return (
    (q.principal === undefined || f[Field.principalId] === q.principal) &&
    (q.namespace === undefined || f[Field.namespace] === q.namespace) &&
    (q.tool === undefined || f[Field.target] === q.tool) &&
    (q.decision === undefined || f[Field.decision] === q.decision) &&
    (q.outcome === undefined || f[Field.outcome] === q.outcome) &&
    (q.since === undefined || f[Field.at] >= q.since) &&
    (q.until === undefined || f[Field.at] < q.until)
  );
}

/**
 * The statement that moves the oldest `limit` records (`ALL`, or a `$` parameter) of the row-per-record table into
 * batches of {@link RECORDS_PER_BATCH} at most, oldest batch first; it answers how many moved (`moved`). The
 * server's migration moves every row present when it upgrades the schema; the sweep moves what a router of the older
 * layout writes during a rolling upgrade.
 */
export function adoptRowRecordsSql(limit: string): string {
  return `
    WITH moved AS (
      DELETE FROM trestle_audit WHERE id IN (SELECT id FROM trestle_audit ORDER BY id LIMIT ${limit})
      RETURNING *
    ), batched AS (
      INSERT INTO trestle_audit_batches (first_at, last_at, principals, records, body)
      SELECT min(at), max(at), array_agg(DISTINCT principal_id), count(*),
        json_agg(json_build_array(at, principal_id, principal_name, principal_kind, namespace, method, target,
          decision, rule, outcome, error_code, duration_ms, front, request_id, arguments) ORDER BY id)::text
      FROM moved GROUP BY id / ${RECORDS_PER_BATCH} ORDER BY id / ${RECORDS_PER_BATCH}
      RETURNING records
    )
    SELECT coalesce(sum(records), 0)::integer AS moved FROM batched`;
}

/** Creates the {@link AuditTable} on `sql`. */
export function createAuditTable(sql: Pick<StoreSqlClient, "query" | "listen">): AuditTable {
  const insertBatch = async (records: readonly AuditRecord[]) => {
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    const principals = new Set<string>();
    for (const r of records) {
      if (r.at < first) first = r.at;
      if (r.at > last) last = r.at;
      principals.add(r.principalId);
    }
    await sql.query(
      `WITH inserted AS (
         INSERT INTO trestle_audit_batches (first_at, last_at, principals, records, body)
         VALUES ($1, $2, ARRAY(SELECT jsonb_array_elements_text($3::jsonb)), $4, $5)
         RETURNING id
       )
       SELECT pg_notify($6, id::text) FROM inserted`,
      [first, last, storableJson([...principals]), records.length, packBatch(records, first), AUDIT_CHANNEL],
    );
  };

  return {
    async insert(records) {
      for (let start = 0; start < records.length; start += RECORDS_PER_BATCH) {
        await insertBatch(records.slice(start, start + RECORDS_PER_BATCH));
      }
    },

    async query(q) {
      let before: RecordPlace | undefined;
      if (q.before !== undefined) {
        before = placeOf(q.before);
        if (before === undefined) return { records: [], nextCursor: null };
      }
      const found: StoredAuditRecord[] = [];
      let scanned = 0;
      for (;;) {
        const where: string[] = [];
        const params: unknown[] = [];
        const add = (clause: string, value: unknown) => {
          params.push(value);
          where.push(clause.replace("?", `$${params.length}`));
        };
        if (before !== undefined) add("id <= ?::bigint", String(before.batch));
        if (q.principal !== undefined) add("? = ANY(principals)", q.principal);
        if (q.since !== undefined) add("last_at >= ?", q.since);
        if (q.until !== undefined) add("first_at < ?", q.until);
        const rows = await sql.query<BatchRow>(
          `SELECT id, records, body FROM trestle_audit_batches
           ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
           ORDER BY id DESC LIMIT ${BATCHES_PER_READ}`,
          params,
        );
        for (const row of rows) {
          const { batch, stored } = decodeBatch(row);
          // A cursor names a place in its batch; one past the batch's end (made up) reads the whole batch.
          const end =
            before !== undefined && batch === before.batch
              ? Math.min(before.index, stored.length)
              : stored.length;
          for (let index = end - 1; index >= 0; index--) {
            const fields = stored[index] as StoredFields;
            if (!matches(q, fields)) continue;
            const id = recordId(batch, index);
            found.push(fromStored(id, fields));
            if (found.length === q.limit) return { records: found, nextCursor: id };
          }
          before = { batch, index: 0 };
          scanned += Number(row.records);
          if (scanned >= MAX_RECORDS_SCANNED) return { records: found, nextCursor: recordId(batch, 0) };
        }
        if (rows.length < BATCHES_PER_READ) return { records: found, nextCursor: null };
      }
    },

    async after(afterId, limit) {
      let from = placeOf(afterId) ?? { batch: 0n, index: 0 };
      const found: StoredAuditRecord[] = [];
      for (;;) {
        const rows = await sql.query<BatchRow>(
          `SELECT id, records, body FROM trestle_audit_batches WHERE id >= $1::bigint
           ORDER BY id ASC LIMIT ${BATCHES_PER_READ}`,
          [String(from.batch)],
        );
        for (const row of rows) {
          const { batch, stored } = decodeBatch(row);
          const start = batch === from.batch ? from.index + 1 : 0;
          for (let index = start; index < stored.length; index++) {
            found.push(fromStored(recordId(batch, index), stored[index] as StoredFields));
            if (found.length === limit) return found;
          }
          from = { batch: batch + 1n, index: -1 };
        }
        if (rows.length < BATCHES_PER_READ) return found;
      }
    },

    async lastId() {
      const rows = await sql.query<Pick<BatchRow, "id" | "records">>(
        "SELECT id, records FROM trestle_audit_batches ORDER BY id DESC LIMIT 1",
        [],
      );
      const row = rows[0];
      return row === undefined ? "0" : recordId(BigInt(row.id), Number(row.records) - 1);
    },

    async deleteOlderThan(before, limit) {
      const rows = await sql.query<{ id: string }>(
        `DELETE FROM trestle_audit_batches
         WHERE id IN (SELECT id FROM trestle_audit_batches WHERE last_at < $1 LIMIT $2)
         RETURNING id`,
        [before, limit],
      );
      return rows.length;
    },

    async adoptRowRecords(limit) {
      const rows = await sql.query<{ moved: number }>(adoptRowRecordsSql("$1"), [limit]);
      return Number(rows[0]?.moved ?? 0);
    },

    subscribe(onWritten, onResync) {
      return sql.listen(AUDIT_CHANNEL, () => onWritten(), onResync);
    },
  };
}
