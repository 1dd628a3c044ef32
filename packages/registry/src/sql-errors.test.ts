import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import type { SqlClient } from "./sql-client.js";
import { connectionFailureOf } from "./sql-errors.js";
import { createSqlStore } from "./sql-store.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("connection failures", () => {
  it.each([
    [withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"), "ECONNREFUSED"],
    [withCode("read ECONNRESET", "ECONNRESET"), "ECONNRESET"],
    [withCode("terminating connection due to administrator command", "57P01"), "SQLSTATE 57P01"],
    [withCode("the database system is starting up", "57P03"), "SQLSTATE 57P03"],
    [withCode("connection failure", "08006"), "SQLSTATE 08006"],
    [new Error("Connection terminated unexpectedly"), "connection lost"],
    [new Error("timeout exceeded when trying to connect"), "connection lost"],
    [
      Object.assign(new AggregateError([withCode("connect ECONNREFUSED ::1:5432", "ECONNREFUSED")]), {}),
      "ECONNREFUSED",
    ],
    [new Error("query failed", { cause: withCode("write EPIPE", "EPIPE") }), "EPIPE"],
  ])("recognises %s", (error, expected) => {
    expect(connectionFailureOf(error)).toBe(expected);
  });

  it.each([
    withCode("duplicate key value violates unique constraint", "23505"),
    withCode("syntax error", "42601"),
    new Error("anything else"),
    "a string",
    undefined,
  ])("leaves statement errors alone: %s", (error) => {
    expect(connectionFailureOf(error)).toBeUndefined();
  });
});

/** A client whose every statement fails with `error`. */
function failingClient(error: unknown): SqlClient {
  return {
    backend: "postgres",
    query: () => Promise.reject(error),
    exec: () => Promise.reject(error),
    transaction: () => Promise.reject(error),
    listen: () => Promise.reject(error),
    close: () => Promise.resolve(),
  };
}

const entry = {
  kind: "tool" as const,
  namespace: "",
  key: "echo",
  name: "echo",
  id: "id-1",
  document: { name: "echo" },
};

describe("the SQL store when the database is unreachable", () => {
  it("refuses a write with Unavailable, naming the store and saying nothing was saved, without the driver's text", async () => {
    const driverError = withCode(
      "connect ECONNREFUSED 10.1.2.3:5432 postgres://trestle:hunter2@db/trestle",
      "ECONNREFUSED",
    );
    const store = createSqlStore(failingClient(driverError));
    const error = await store.insertEntry(entry, 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.Unavailable);
    expect((error as TrestleError).rawMessage).toBe(
      "The catalog store (PostgreSQL) is unavailable (ECONNREFUSED); the change was not saved. Try again once the database is reachable",
    );
    expect((error as TrestleError).message).not.toMatch(/10\.1\.2\.3|hunter2|postgres:\/\//);
    expect((error as TrestleError).cause).toBe(driverError);
    await expect(store.registerService({} as never, 1)).rejects.toMatchObject({ code: Code.Unavailable });
    await expect(store.listServices()).rejects.toMatchObject({
      code: Code.Unavailable,
      rawMessage: expect.stringContaining("nothing could be read"),
    });
  });

  it("keeps mapping statement errors as before", async () => {
    const store = createSqlStore(
      failingClient(
        Object.assign(withCode("duplicate", "23505"), { constraint: "trestle_catalog_entries_name" }),
      ),
    );
    await expect(store.insertEntry(entry, 1)).rejects.toMatchObject({ code: Code.AlreadyExists });
    const plain = createSqlStore(failingClient(new Error("some defect")));
    await expect(plain.listServices()).rejects.toThrow("some defect");
  });
});

describe("the store's SQL client, lent to another owner, when the database is unreachable", () => {
  const driverError = withCode("connect ECONNREFUSED 10.1.2.3:5432", "ECONNREFUSED");
  const unavailable = (outcome: string) => ({
    code: Code.Unavailable,
    rawMessage: `The catalog store (PostgreSQL) is unavailable (ECONNREFUSED); ${outcome}. Try again once the database is reachable`,
    cause: driverError,
  });

  it("maps a failed read, write, script, transaction and subscription as the store's own methods", async () => {
    const { sql } = createSqlStore(failingClient(driverError));
    await expect(sql.query("SELECT digest FROM t WHERE digest = $1", ["d"])).rejects.toMatchObject(
      unavailable("nothing could be read"),
    );
    for (const write of [
      "INSERT INTO t (id) VALUES ($1)",
      "WITH recorded AS (INSERT INTO t (id) VALUES ($1)) SELECT pg_notify('c', $1)",
      "SELECT pg_notify('c', $1)",
    ]) {
      await expect(sql.query(write, ["x"])).rejects.toMatchObject(unavailable("the change was not saved"));
    }
    await expect(sql.exec("CREATE TABLE t (id text)")).rejects.toMatchObject(
      unavailable("the change was not saved"),
    );
    await expect(sql.transaction(async () => 1)).rejects.toMatchObject(
      unavailable("the change was not saved"),
    );
    await expect(
      sql.listen(
        "c",
        () => undefined,
        () => undefined,
      ),
    ).rejects.toMatchObject(unavailable("the change was not saved"));
  });

  it("passes a statement's own error as it is, and cannot close the store's client", async () => {
    const defect = withCode("syntax error", "42601");
    const { sql } = createSqlStore(failingClient(defect));
    await expect(sql.query("SELEC 1")).rejects.toBe(defect);
    expect("close" in sql).toBe(false);
  });
});
