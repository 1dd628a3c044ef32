import pg from "pg";
import type { RegistryLogger } from "./logger.js";
import type { SqlClient, SqlExecutor } from "./sql-client.js";

/** Options for {@link createPostgresClient}. */
export interface PostgresClientOptions {
  /** `postgres://user:password@host:port/database`. Never logged: it may hold a password. */
  connectionString: string;
  /** Most connections the pool opens (the listening connection comes on top). */
  maxConnections?: number;
  logger: RegistryLogger;
}

/** SQLSTATEs after which a transaction may simply be tried again. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 4;
const CHANNEL = /^[a-z_][a-z0-9_]*$/;
/** Shown in `pg_stat_activity`, so an operator (or a test) can tell the listening connection apart. */
export const LISTEN_APPLICATION_NAME = "trestle-listen";

function executor(client: pg.PoolClient | pg.Pool): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: unknown[]) {
      const result = await client.query(sql, params);
      return result.rows as Row[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

function sqlState(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}

/**
 * A {@link SqlClient} on a PostgreSQL server: a connection pool for statements and transactions, and one
 * dedicated connection that LISTENs, re-established with back-off when it drops.
 */
export function createPostgresClient(options: PostgresClientOptions): SqlClient {
  const { logger } = options;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    application_name: "trestle",
  });
  // An idle connection that dies must not crash the process; the next checkout opens a new one.
  pool.on("error", (error) => {
    logger.warn({ err: error.message }, "an idle PostgreSQL connection failed");
  });
  const listeners = new Set<() => Promise<void>>();
  const direct = executor(pool);

  return {
    backend: "postgres",
    query: direct.query,
    exec: direct.exec,
    async transaction(work) {
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        let broken = false;
        try {
          await client.query("BEGIN");
          const result = await work(executor(client));
          await client.query("COMMIT");
          return result;
        } catch (error) {
          try {
            await client.query("ROLLBACK");
          } catch {
            broken = true;
          }
          if (attempt < MAX_ATTEMPTS && RETRYABLE.has(sqlState(error) ?? "")) {
            logger.debug({ sqlState: sqlState(error), attempt }, "retrying a transaction after a conflict");
            continue;
          }
          throw error;
        } finally {
          client.release(broken);
        }
      }
    },
    async listen(channel, onNotification, onReconnect) {
      if (!CHANNEL.test(channel)) throw new Error(`Invalid channel name '${channel}'`);
      let closed = false;
      let client: pg.Client | undefined;
      let retryTimer: NodeJS.Timeout | undefined;
      let delayMs = 100;

      const connect = async (): Promise<void> => {
        const next = new pg.Client({
          connectionString: options.connectionString,
          application_name: LISTEN_APPLICATION_NAME,
        });
        next.on("notification", (message) => {
          if (message.channel === channel && message.payload !== undefined) onNotification(message.payload);
        });
        // Only an established connection reconnects when lost; a failed attempt is retried by its caller.
        const onLost = (error?: Error) => {
          if (client !== next) return;
          client = undefined;
          next.removeAllListeners("notification");
          void next.end().catch(() => undefined);
          if (closed) return;
          logger.warn({ err: error?.message }, "the PostgreSQL listening connection was lost; reconnecting");
          scheduleReconnect();
        };
        next.on("error", onLost);
        next.on("end", () => onLost());
        try {
          await next.connect();
          await next.query(`LISTEN ${channel}`);
        } catch (error) {
          void next.end().catch(() => undefined);
          throw error;
        }
        if (closed) {
          void next.end().catch(() => undefined);
          return;
        }
        client = next;
      };

      const scheduleReconnect = () => {
        retryTimer = setTimeout(async () => {
          retryTimer = undefined;
          if (closed) return;
          try {
            await connect();
            if (closed) return;
            delayMs = 100;
            logger.info({}, "the PostgreSQL listening connection is back; resynchronising");
            onReconnect();
          } catch (error) {
            delayMs = Math.min(delayMs * 2, 5000);
            logger.warn(
              { err: (error as Error).message, retryInMs: delayMs },
              "reconnecting the PostgreSQL listening connection failed",
            );
            if (!closed) scheduleReconnect();
          }
        }, delayMs);
        retryTimer.unref();
      };

      await connect();
      const stop = async () => {
        closed = true;
        if (retryTimer) clearTimeout(retryTimer);
        listeners.delete(stop);
        const current = client;
        client = undefined;
        if (current) {
          current.removeAllListeners();
          current.on("error", () => undefined);
          await current.end().catch(() => undefined);
        }
      };
      listeners.add(stop);
      return stop;
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
  };
}
