import { Code, TrestleError } from "@trestle/core";
import type { SqlClient, StoreSqlClient } from "./sql-client.js";
import { connectionFailureOf } from "./sql-errors.js";

/** What a call that failed could not do, as its error tells the caller: read, or save a change. */
export type CallOutcome = "read" | "write";

/**
 * `target` with every connection-level failure of its methods (database down, connection lost or refused, server
 * shutting down) turned into a `TrestleError` `Unavailable` whose message names the store and says that nothing
 * was read or saved (`outcomeOf` tells which), instead of the driver's text (which names hosts and ports and means
 * nothing to an API client). Other errors pass unchanged; the driver's error stays as the `cause`, for logs.
 * `close` and properties that are not functions pass as they are.
 */
export function withConnectionErrors<T extends object>(
  target: T,
  backend: SqlClient["backend"],
  outcomeOf: (method: string, args: readonly unknown[]) => CallOutcome,
): T {
  const database = backend === "postgres" ? "PostgreSQL" : "embedded PGlite";
  const methods = target as Record<string, unknown>;
  const guarded: Record<string, unknown> = { ...methods };
  for (const [name, value] of Object.entries(methods)) {
    if (typeof value !== "function" || name === "close") continue;
    const method = value as (...args: unknown[]) => unknown;
    const mapped = (error: unknown, args: readonly unknown[]): unknown => {
      const failure = connectionFailureOf(error);
      if (failure === undefined) return error;
      const outcome = outcomeOf(name, args) === "read" ? "nothing could be read" : "the change was not saved";
      return new TrestleError(
        `The catalog store (${database}) is unavailable (${failure}); ${outcome}. Try again once the database is reachable`,
        Code.Unavailable,
        { cause: error },
      );
    };
    guarded[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(target, args);
      } catch (error) {
        throw mapped(error, args);
      }
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw mapped(error, args);
          })
        : result;
    };
  }
  return guarded as T;
}

/** A statement that begins with SELECT and sends no notification only reads. */
function onlyReads(sql: unknown): boolean {
  return typeof sql === "string" && /^\s*SELECT\b/i.test(sql) && !/\bpg_notify\s*\(/i.test(sql);
}

/**
 * The client as the store lends it to another owner of state (`Store.sql`): without `close`, and with connection
 * failures mapped as the store's own methods map them. A failed `query` of a statement that only reads says that
 * nothing could be read; every other failure (a write, a script, a transaction, a subscription) that the change
 * was not saved.
 */
export function lentSqlClient(client: SqlClient): StoreSqlClient {
  const lent: StoreSqlClient = {
    backend: client.backend,
    query: (sql, params) => client.query(sql, params),
    exec: (sql) => client.exec(sql),
    transaction: (work) => client.transaction(work),
    listen: (channel, onNotification, onReconnect) => client.listen(channel, onNotification, onReconnect),
  };
  return withConnectionErrors(lent, client.backend, (method, args) =>
    method === "query" && onlyReads(args[0]) ? "read" : "write",
  );
}
