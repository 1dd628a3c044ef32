/** Runs statements: the part of a connection that a transaction and a client share. */
export interface SqlExecutor {
  /** Runs one statement with `$1`-style parameters and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * The one seam between the store's SQL and a database: embedded PGlite or a PostgreSQL server. The store
 * writes the same SQL for both.
 */
export interface SqlClient extends SqlExecutor {
  /** Which database runs the SQL. */
  readonly backend: "pglite" | "postgres";
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it rejects. On PostgreSQL a
   * deadlock or serialisation failure retries `work` a few times, so `work` must not have side effects
   * outside the transaction.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Listens for notifications on `channel`. `onReconnect` runs each time the listening connection had to be
   * re-established, since notifications sent meanwhile are lost.
   */
  listen(
    channel: string,
    onNotification: (payload: string) => void,
    onReconnect: () => void,
  ): Promise<() => Promise<void>>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/**
 * The store's SQL client as it lends it to another owner of state on the same database (see `Store.sql`):
 * everything but closing it, which the store's own `close` does.
 */
export type StoreSqlClient = Omit<SqlClient, "close">;
