import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/index.js";
import { applyMigrations } from "../src/migrations.js";
import { createPgliteClient } from "../src/pglite-client.js";
import type { SqlClient } from "../src/sql-client.js";
import { createSqlStore } from "../src/sql-store.js";

describe("ended MCP sessions in the store", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterAll(() => store.close());

  it("keeps an end until the session would have expired, and drops expired ends at the next one", async () => {
    await store.endMcpSession("seal-1", 1_000, 5_000);
    expect(await store.isMcpSessionEnded("seal-1", 4_999)).toBe(true);
    expect(await store.isMcpSessionEnded("seal-1", 5_000)).toBe(false);
    expect(await store.isMcpSessionEnded("seal-2", 1_000)).toBe(false);
    // Ended twice (a client retrying its DELETE): one end, as first recorded.
    await store.endMcpSession("seal-1", 1_500, 9_000);
    expect(await store.isMcpSessionEnded("seal-1", 6_000)).toBe(false);
    expect(await store.mcpSessionsEndedSince(0)).toEqual(["seal-1"]);
    // The next end, after seal-1's expiry, takes it away.
    await store.endMcpSession("seal-3", 6_000, 20_000);
    expect(await store.mcpSessionsEndedSince(0)).toEqual(["seal-3"]);
    expect(await store.mcpSessionsEndedSince(6_001)).toEqual([]);
  });

  it("announces each end to its subscribers, by digest", async () => {
    const heard: string[] = [];
    const stop = await store.subscribeEndedMcpSessions(
      (digest) => heard.push(digest),
      () => undefined,
    );
    await store.endMcpSession("seal-4", 7_000, 20_000);
    await store.endMcpSession("seal-5", 7_000, 20_000);
    for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(heard).toEqual(["seal-4", "seal-5"]);
  });

  it("records an end in one statement: one round trip, its own transaction", async () => {
    // A client's DELETE waits on this; on the embedded store each statement costs as much as a whole end.
    const client = createPgliteClient(await PGlite.create());
    try {
      await applyMigrations(client);
      const statements: string[] = [];
      const counted: SqlClient = {
        ...client,
        query: (sql, params) => {
          statements.push(sql);
          return client.query(sql, params);
        },
        transaction: (work) => {
          statements.push("BEGIN");
          return client.transaction((tx) =>
            work({
              ...tx,
              query: (sql, params) => {
                statements.push(sql);
                return tx.query(sql, params);
              },
            }),
          );
        },
      };
      const counting = createSqlStore(counted);
      const heard: string[] = [];
      const stop = await counting.subscribeEndedMcpSessions(
        (digest) => heard.push(digest),
        () => undefined,
      );
      await counting.endMcpSession("seal-a", 1_000, 5_000);
      expect(statements).toHaveLength(1);
      await counting.endMcpSession("seal-b", 6_000, 9_000);
      for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      await stop();
      expect(heard).toEqual(["seal-a", "seal-b"]);
      // The same statement still drops the ends that expired (seal-a's at 5,000) and keeps a retried end once.
      await counting.endMcpSession("seal-b", 7_000, 12_000);
      expect(await counting.mcpSessionsEndedSince(0)).toEqual(["seal-b"]);
      expect(await counting.isMcpSessionEnded("seal-b", 8_999)).toBe(true);
      expect(await counting.isMcpSessionEnded("seal-b", 9_000)).toBe(false);
    } finally {
      await client.close();
    }
  });
});
