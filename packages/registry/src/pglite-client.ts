import type { PGlite } from "@electric-sql/pglite";
import type { SqlClient, SqlExecutor } from "./sql-client.js";

/** Serialises PGlite access: it runs one statement at a time on one connection. */
function executor(db: Pick<PGlite, "query" | "exec">): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: unknown[]) {
      const result = await db.query<Row>(sql, params);
      return result.rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}

/**
 * A {@link SqlClient} on an embedded PGlite database. PGlite has a single connection, so transactions run one
 * after another and notifications reach listeners of this instance only (there are no other processes).
 */
export function createPgliteClient(db: PGlite): SqlClient {
  const direct = executor(db);
  return {
    backend: "pglite",
    query: direct.query,
    exec: direct.exec,
    transaction(work) {
      return db.transaction((tx) => work(executor(tx)));
    },
    async listen(channel, onNotification) {
      const unlisten = await db.listen(channel, onNotification);
      return async () => {
        if (!db.closed) await unlisten();
      };
    },
    async close() {
      if (!db.closed) await db.close();
    },
  };
}
