import { openStore, type Store } from "@trestle/registry";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openServerState } from "../state/server-state.js";
import { createAuditLog } from "./audit-log.js";
import type { AuditRecord, StoredAuditRecord } from "./audit-record.js";
import { type AuditTable, createAuditTable } from "./audit-table.js";

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

    const all = await log.query({ limit: 10 });
    expect(all.map((r) => r.target)).toEqual(["pay", "echo", "echo"]);
    expect((await log.query({ principal: "bob", limit: 10 })).map((r) => r.rule)).toEqual(["no-bob"]);
    expect((await log.query({ decision: "denied", limit: 10 })).map((r) => r.principalId)).toEqual(["bob"]);
    expect((await log.query({ outcome: "error", limit: 10 }))[0]?.errorCode).toBe("Unavailable");
    expect((await log.query({ tool: "echo", principal: "alice", limit: 10 })).length).toBe(1);

    const first = await log.query({ limit: 2 });
    const next = await log.query({ limit: 2, before: (first[1] as StoredAuditRecord).id });
    expect([...first, ...next].map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(await log.query({ limit: 2, before: "not a number" })).toEqual([]);
    await log.close();
  });

  it("filters by time: since inclusive, until exclusive", async () => {
    const log = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => 1_000 });
    for (const at of [100, 200, 300]) log.record(record({ at }));
    await log.flush();
    expect((await log.query({ since: 200, until: 300, limit: 10 })).map((r) => r.at)).toEqual([200]);
    await log.close();
  });

  it("follows the trail live, and resumes after an id", async () => {
    const log = createAuditLog({ table, logger: silent, retentionMs: 60_000, flushDelayMs: 10 });
    log.record(record({ target: "before" }));
    await log.flush();
    const seen: string[] = [];
    const tail = await log.tail(undefined, (records) => seen.push(...records.map((r) => r.target ?? "")));
    log.record(record({ target: "live" }));
    await expect.poll(() => seen, { timeout: 3_000 }).toEqual(["live"]);
    tail.stop();

    const [newest, older] = await log.query({ limit: 2 });
    const resumed: string[] = [];
    const again = await log.tail(older?.id, (records) => resumed.push(...records.map((r) => r.id)));
    await expect.poll(() => resumed, { timeout: 3_000 }).toEqual([newest?.id]);
    again.stop();
    await log.close();
  });

  it("deletes records past their retention", async () => {
    const clock = { now: 10_000_000 };
    const writer = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => clock.now });
    writer.record(record({ at: clock.now - 120_000, target: "old" }));
    writer.record(record({ at: clock.now - 1_000, target: "recent" }));
    await writer.close();
    // A new log sweeps as it starts, as every replica does on its interval.
    const sweeper = createAuditLog({ table, logger: silent, retentionMs: 60_000, now: () => clock.now });
    await expect
      .poll(async () => (await sweeper.query({ limit: 10 })).map((r) => r.target), { timeout: 3_000 })
      .toEqual(["recent"]);
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

describe("text a client chose, in a batch with another principal's records", () => {
  // PGlite's COPY (the embedded store) and the JSON INSERT (PostgreSQL, where the client has no copyRows).
  const paths: Array<[string, () => AuditTable]> = [
    ["COPY", () => table],
    ["INSERT", () => createAuditTable({ query: store.sql.query, listen: store.sql.listen })],
  ];
  for (const [path, tableOf] of paths) {
    it(`keeps every record of the batch (${path}): NUL, lone surrogates, tabs, newlines and backslashes`, async () => {
      if (path === "COPY") expect(store.sql.copyRows).toBeTypeOf("function");
      const log = createAuditLog({ table: tableOf(), logger: silent, retentionMs: 60_000, now: () => 1_000 });
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
      const [mallory, alice] = await log.query({ limit: 10 });
      expect(alice).toMatchObject({ principalId: "alice", requestId: "7", arguments: null });
      const cleaned = "a\uFFFDb\uFFFDc\tq\nr\\.\r\\N\\u0000";
      expect(mallory?.requestId).toBe(cleaned);
      expect(mallory?.arguments).toEqual({ [`k\uFFFD${cleaned}`]: [cleaned, { nested: "\uFFFD" }], n: 1 });
      await log.close();
    });
  }
});
