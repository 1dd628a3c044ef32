import { openStore, type Store } from "@trestle/registry";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openServerState } from "../state/server-state.js";
import { createAuditLog } from "./audit-log.js";
import type { AuditRecord, StoredAuditRecord } from "./audit-record.js";
import { type AuditTable, createAuditTable, MAX_RECORDS_SCANNED, RECORDS_PER_BATCH } from "./audit-table.js";

let store: Store;
let table: AuditTable;

beforeAll(async () => {
  store = await openStore({ memory: true });
  await openServerState(store.sql);
  table = createAuditTable(store.sql);
});
afterAll(async () => {
  await store.close();
});
beforeEach(async () => {
  await store.sql.query("DELETE FROM trestle_audit_batches", []);
  await store.sql.query("DELETE FROM trestle_audit", []);
});

function record(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: 1_000,
    principalId: "alice",
    principalName: "alice",
    principalKind: "token",
    namespace: "",
    method: "tools/call",
    target: "echo",
    decision: "allowed",
    rule: null,
    outcome: "ok",
    errorCode: null,
    durationMs: 3,
    front: "mcp",
    requestId: "1",
    arguments: null,
    ...overrides,
  };
}

const silent = { warn: () => undefined };

describe("the audit log", () => {
  it("writes queued records in a batch, and answers queries newest first with filters and a cursor", async () => {
    const log = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => 1_000 });
    log.record(record({ principalId: "alice", target: "echo" }));
    log.record(
      record({ principalId: "bob", target: "echo", decision: "denied", rule: "no-bob", outcome: null }),
    );
    log.record(record({ principalId: "alice", target: "pay", outcome: "error", errorCode: "Unavailable" }));
    await log.flush();

    const { records: all, nextCursor } = await log.query({ limit: 10 });
    expect(nextCursor).toBeNull();
    expect(all.map((r) => r.target)).toEqual(["pay", "echo", "echo"]);
    expect((await log.query({ principal: "bob", limit: 10 })).records.map((r) => r.rule)).toEqual(["no-bob"]);
    expect((await log.query({ decision: "denied", limit: 10 })).records.map((r) => r.principalId)).toEqual([
      "bob",
    ]);
    expect((await log.query({ outcome: "error", limit: 10 })).records[0]?.errorCode).toBe("Unavailable");
    expect((await log.query({ tool: "echo", principal: "alice", limit: 10 })).records.length).toBe(1);

    const first = await log.query({ limit: 2 });
    expect(first.nextCursor).toBe((first.records[1] as StoredAuditRecord).id);
    const next = await log.query({ limit: 2, before: first.nextCursor ?? "" });
    expect([...first.records, ...next.records].map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(next.nextCursor).toBeNull();
    expect(await log.query({ limit: 2, before: "not a number" })).toEqual({ records: [], nextCursor: null });
    await log.close();
  });

  it("filters by time: since inclusive, until exclusive", async () => {
    const log = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => 1_000 });
    for (const at of [100, 200, 300]) log.record(record({ at }));
    await log.flush();
    expect((await log.query({ since: 200, until: 300, limit: 10 })).records.map((r) => r.at)).toEqual([200]);
    await log.close();
  });

  it("follows the trail live, and resumes after an id", async () => {
    // The records' clock is the log's: its sweep deletes nothing they hold.
    const log = createAuditLog({
      table,
      logger: silent,
      retentionMs: 60_000,
      flushDelayMs: 10,
      now: () => 1_000,
    });
    log.record(record({ target: "before" }));
    await log.flush();
    const seen: string[] = [];
    const tail = await log.tail(undefined, (records) => seen.push(...records.map((r) => r.target ?? "")));
    log.record(record({ target: "live" }));
    await expect.poll(() => seen, { timeout: 3_000 }).toEqual(["live"]);
    tail.stop();

    const [newest, older] = (await log.query({ limit: 2 })).records;
    const resumed: string[] = [];
    const again = await log.tail(older?.id, (records) => resumed.push(...records.map((r) => r.id)));
    await expect.poll(() => resumed, { timeout: 3_000 }).toEqual([newest?.id]);
    again.stop();
    await log.close();
  });

  it("deletes records past their retention, a batch at a time once its newest record is past it", async () => {
    const clock = { now: 10_000_000 };
    const writer = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => clock.now });
    writer.record(record({ at: clock.now - 120_000, target: "old" }));
    await writer.flush();
    // A long call's record (stamped when it began) shares its batch with a recent one: both stay until the newest
    // ages, so retention never deletes a record early.
    writer.record(record({ at: clock.now - 120_000, target: "long call" }));
    writer.record(record({ at: clock.now - 1_000, target: "recent" }));
    await writer.close();
    // A new log sweeps as it starts, as every replica does on its interval.
    const sweeper = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => clock.now });
    await expect
      .poll(async () => (await sweeper.query({ limit: 10 })).records.map((r) => r.target), { timeout: 3_000 })
      .toEqual(["recent", "long call"]);
    await sweeper.close();
  });

  it("never throws when the store fails, and warns once per interval however many records are lost", async () => {
    const warnings: object[] = [];
    const failing: AuditTable = {
      ...table,
      insert: async () => {
        throw new Error("connection refused");
      },
    };
    const log = createAuditLog({
      table: failing,
      logger: { warn: (fields) => warnings.push(fields) },
      retentionMs: 60_000,
      batchSize: 2,
      warnIntervalMs: 60_000,
    });
    for (let i = 0; i < 10; i++) expect(() => log.record(record())).not.toThrow();
    await log.flush();
    log.record(record());
    await log.flush();
    // The first failed batch is told at once; every record lost after it within the interval waits for the next line.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ lost: 2 });
    await log.close();
  });

  it("writes what comes in during a write with the next batch, not as a train of small ones", async () => {
    const batches: number[] = [];
    let release: () => void = () => undefined;
    const slow: AuditTable = {
      ...table,
      insert: async (records) => {
        batches.push(records.length);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    };
    const log = createAuditLog({
      table: slow,
      logger: silent,
      retentionMs: 60_000,
      batchSize: 4,
      flushDelayMs: 60_000,
    });
    for (let i = 0; i < 4; i++) log.record(record());
    // A full batch is being written; three more arrive meanwhile.
    for (let i = 0; i < 3; i++) log.record(record());
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // They wait for their batch to fill (or the timer): no write of three at once.
    expect(batches).toEqual([4]);
    log.record(record());
    await expect.poll(() => batches).toEqual([4, 4]);
    release();
    const closing = log.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await closing;
  });

  it("drops records past its buffer's bound instead of growing", async () => {
    const never: AuditTable = { ...table, insert: () => new Promise(() => undefined) };
    const warnings: object[] = [];
    const log = createAuditLog({
      table: never,
      logger: { warn: (fields) => warnings.push(fields) },
      retentionMs: 60_000,
      maxBuffered: 3,
      batchSize: 100,
      flushDelayMs: 60_000,
    });
    for (let i = 0; i < 5; i++) log.record(record());
    // The first record lost is told at once; the next within the interval is counted for the next warning.
    expect(warnings).toEqual([expect.objectContaining({ lost: 1, err: "the audit buffer is full" })]);
  });
});

describe("the audit table, a batch to a row", () => {
  it("pages through records of many batches newest first, and follows them forward from any id", async () => {
    for (let b = 0; b < 3; b++)
      await table.insert(
        Array.from({ length: 5 }, (_, i) => record({ at: b * 10 + i, requestId: `${b}.${i}` })),
      );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await table.query({ limit: 4, ...(cursor ? { before: cursor } : {}) });
      seen.push(...page.records.map((r) => r.requestId ?? ""));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const written = Array.from({ length: 15 }, (_, n) => `${Math.floor(n / 5)}.${n % 5}`);
    expect(seen).toEqual([...written].reverse());

    const all = (await table.query({ limit: 100 })).records;
    const ids = all.map((r) => BigInt(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
    expect(await table.lastId()).toBe(all[0]?.id);
    // Forward from inside a batch, across the next ones, in pages.
    const from = all[12]?.id ?? "";
    expect((await table.after(from, 4)).map((r) => r.requestId)).toEqual(["0.3", "0.4", "1.0", "1.1"]);
    expect((await table.after(from, 100)).map((r) => r.requestId)).toEqual(written.slice(3));
    expect(await table.after(all[0]?.id ?? "", 10)).toEqual([]);
    // A cursor made up to point past the end of a batch (ids are batch × 1000 + place) reads that batch whole.
    const newestBatch = BigInt(all[0]?.id ?? "0") / 1000n;
    const pastEnd = await table.query({ limit: 3, before: String(newestBatch * 1000n + 999n) });
    expect(pastEnd.records.map((r) => r.requestId)).toEqual(["2.4", "2.3", "2.2"]);
  });

  it(`splits more than ${RECORDS_PER_BATCH} records into batches, each record's id its batch's × ${RECORDS_PER_BATCH} plus its place`, async () => {
    await table.insert(Array.from({ length: RECORDS_PER_BATCH + 2 }, (_, i) => record({ at: i })));
    const batches = await store.sql.query<{ id: string | number; records: number }>(
      "SELECT id, records FROM trestle_audit_batches ORDER BY id",
      [],
    );
    expect(batches.map((b) => b.records)).toEqual([RECORDS_PER_BATCH, 2]);
    const [newest] = (await table.query({ limit: 1 })).records;
    expect(newest?.id).toBe(String(BigInt(batches[1]?.id ?? 0) * BigInt(RECORDS_PER_BATCH) + 1n));
    expect(newest?.at).toBe(RECORDS_PER_BATCH + 1);
  });

  it(`reads at most ${MAX_RECORDS_SCANNED} records a query, and answers a cursor to go on from where it stopped`, async () => {
    // The one match is the oldest record, behind more records than a query reads.
    await table.insert([record({ principalId: "alice", target: "rare" })]);
    for (let n = 0; n < MAX_RECORDS_SCANNED + RECORDS_PER_BATCH; n += RECORDS_PER_BATCH)
      await table.insert(Array.from({ length: RECORDS_PER_BATCH }, () => record({ principalId: "alice" })));
    const first = await table.query({ tool: "rare", limit: 10 });
    expect(first.records).toEqual([]);
    expect(first.nextCursor).not.toBeNull();
    const second = await table.query({ tool: "rare", limit: 10, before: first.nextCursor ?? "" });
    expect(second.records.map((r) => r.target)).toEqual(["rare"]);
    expect(second.nextCursor).toBeNull();
    // A filter on the principal skips the batches that hold none of its records without reading them.
    expect(await table.query({ principal: "bob", limit: 10 })).toEqual({ records: [], nextCursor: null });
  });
});

describe("a batch's body", () => {
  it("writes each text of its records once, and reads back every record as it was given", async () => {
    const given = [
      record({ at: 5_000, principalId: "alice", principalName: "Alice", target: "echo", requestId: "1" }),
      record({ at: 5_007, principalId: "bob", target: "echo", rule: "r", outcome: null, decision: "denied" }),
      record({ at: 5_003, principalId: "alice", principalName: "Alice", target: "0", requestId: "alice" }),
    ];
    await table.insert(given);
    const [row] = await store.sql.query<{ body: string }>("SELECT body FROM trestle_audit_batches", []);
    const body = JSON.parse(row?.body ?? "null") as { at: number; strings: string[]; records: unknown[][] };
    expect(body.at).toBe(5_000);
    expect(new Set(body.strings).size).toBe(body.strings.length);
    expect(body.strings).toEqual(
      expect.arrayContaining(["alice", "Alice", "bob", "echo", "tools/call", "0"]),
    );
    expect(body.records.map((fields) => fields[0])).toEqual([0, 7, 3]);
    const read = (await table.query({ limit: 10 })).records.map(({ id: _id, ...fields }) => fields);
    expect(read).toEqual([...given].reverse());
  });

  it("reads a batch stored as a plain array of records, as the migration from the row layout writes it", async () => {
    const fields = [
      9_000,
      "carol",
      "carol",
      "token",
      "ns",
      "tools/call",
      "echo",
      "allowed",
      null,
      "ok",
      null,
      4,
      "a2a",
      "r1",
      { q: 1 },
    ];
    await store.sql.query(
      "INSERT INTO trestle_audit_batches (first_at, last_at, principals, records, body) VALUES ($1, $1, ARRAY['carol'], 1, $2)",
      [9_000, JSON.stringify([fields])],
    );
    const [carol] = (await table.query({ principal: "carol", limit: 10 })).records;
    expect(carol).toMatchObject({
      at: 9_000,
      principalId: "carol",
      namespace: "ns",
      front: "a2a",
      arguments: { q: 1 },
    });
  });
});

describe("text a client chose, in a batch with another principal's records", () => {
  it("keeps every record of the batch: NUL, lone surrogates, tabs, newlines and backslashes", async () => {
    const log = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => 1_000 });
    log.record(record({ principalId: "alice", target: "echo", requestId: "7" }));
    const hostile = "a\u0000b\ud800c\tq\nr\\.\r\\N\\u0000";
    log.record(
      record({
        principalId: "mallory",
        requestId: hostile,
        arguments: { [`k\u0000${hostile}`]: [hostile, { nested: "\udc00" }], n: 1 },
      }),
    );
    await log.flush();
    const [mallory, alice] = (await log.query({ limit: 10 })).records;
    expect(alice).toMatchObject({ principalId: "alice", requestId: "7", arguments: null });
    const cleaned = "a\uFFFDb\uFFFDc\tq\nr\\.\r\\N\\u0000";
    expect(mallory?.requestId).toBe(cleaned);
    expect(mallory?.arguments).toEqual({ [`k\uFFFD${cleaned}`]: [cleaned, { nested: "\uFFFD" }], n: 1 });
    await log.close();
  });
});
