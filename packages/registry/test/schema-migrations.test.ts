import { Code } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, openStore, type Store } from "../src/index.js";

describe("applyMigrations for another owner of state", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterAll(() => store.close());

  it("refuses a table that is no plain SQL name, and a lock key that is no safe integer, before touching anything", async () => {
    for (const table of ["notes; DROP TABLE trestle_services", "Notes", "", "x".repeat(64)]) {
      await expect(applyMigrations(store.sql, [], { table, lockKey: 1 })).rejects.toMatchObject({
        code: Code.InvalidArgument,
      });
    }
    await expect(
      applyMigrations(store.sql, [], { table: "notes_migrations", lockKey: 2 ** 60 }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    expect(
      await store.sql.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'notes_migrations'"),
    ).toEqual([]);
  });

  it("applies the steps in order, records an empty one without running it, and applies none twice", async () => {
    const options = { table: "ordered_migrations", lockKey: 4_242_000_002 };
    const steps = [
      { version: 2, name: "second", sql: "INSERT INTO ordered_notes (id) VALUES ('after the table')" },
      { version: 1, name: "first", sql: "CREATE TABLE ordered_notes (id text PRIMARY KEY)" },
      { version: 3, name: "emptied", sql: "  " },
    ];
    expect(await applyMigrations(store.sql, steps, options)).toEqual([1, 2, 3]);
    expect(await applyMigrations(store.sql, steps, options)).toEqual([]);
    expect(await store.sql.query("SELECT id FROM ordered_notes")).toEqual([{ id: "after the table" }]);
    expect(await store.sql.query("SELECT version, name FROM ordered_migrations ORDER BY version")).toEqual([
      { version: 1, name: "first" },
      { version: 2, name: "second" },
      { version: 3, name: "emptied" },
    ]);
  });

  it("applies nothing of a batch whose step fails", async () => {
    const options = { table: "failing_migrations", lockKey: 4_242_000_003 };
    const steps = [
      { version: 1, name: "fine", sql: "CREATE TABLE failing_notes (id text)" },
      { version: 2, name: "broken", sql: "ALTER TABLE no_such_table ADD COLUMN x text" },
    ];
    await expect(applyMigrations(store.sql, steps, options)).rejects.toThrow(/no_such_table/);
    expect(
      await store.sql.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'failing_notes'"),
    ).toEqual([]);
  });
});
