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
  /**
   * Appends rows to `table` with PostgreSQL's `COPY … FROM`: `rows` is COPY's text format (one line per row, columns
   * in the order of `columns`, separated by tabs, `\N` for null; see {@link copyTextField}). Present where it is
   * cheaper than an `INSERT` for the process: on embedded PGlite, whose database work is the router's own CPU
   * (loading by COPY skips the statement's planning and the parsing of a JSON parameter). Absent on PostgreSQL, whose
   * work is the database server's.
   */
  copyRows?(table: string, columns: readonly string[], rows: string): Promise<void>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** Characters COPY's text format gives a meaning to, and what stands for each inside a field. */
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  // PostgreSQL's text cannot hold NUL: it is stored as U+FFFD rather than failing the rows loaded with it.
  "\0": "\uFFFD",
};

/**
 * One field of a row in COPY's text format (see {@link SqlClient.copyRows}): `\N` for null, otherwise the value's text
 * with backslash, tab, newline and carriage return escaped and NUL replaced by U+FFFD.
 */
export function copyTextField(value: string | number | null): string {
  if (value === null) return "\\N";
  const text = String(value);
  return /[\\\t\n\r\0]/.test(text) ? text.replace(/[\\\t\n\r\0]/g, (c) => COPY_ESCAPES[c] as string) : text;
}

/**
 * The store's SQL client as it lends it to another owner of state on the same database (see `Store.sql`):
 * everything but closing it, which the store's own `close` does.
 */
export type StoreSqlClient = Omit<SqlClient, "close">;
