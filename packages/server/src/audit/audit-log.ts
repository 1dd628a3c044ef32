import { TrestleError } from "@trestle/core";
import type { AuditRecord, StoredAuditRecord } from "./audit-record.js";
import { type AuditPage, type AuditQuery, type AuditTable, RECORDS_PER_BATCH } from "./audit-table.js";

/** What the audit log tells its operator: one line per interval at most, whatever the number of calls. */
export interface AuditLogger {
  warn(fields: object, message: string): void;
}

/** Options of {@link createAuditLog}. */
export interface AuditLogOptions {
  table: AuditTable;
  logger: AuditLogger;
  /** How long records are kept (ms). */
  retentionMs: number;
  /** Records waiting to be written at most; further ones are counted as lost until the buffer drains. */
  maxBuffered?: number;
  /** Records per insert at most (the table stores more than its `RECORDS_PER_BATCH` as several rows); 1,000. */
  batchSize?: number;
  /** How long a record may wait for its batch (ms); 1,000. */
  flushDelayMs?: number;
  /** How often old records are deleted (ms). */
  sweepIntervalMs?: number;
  /** At most one warning per this many ms about records that could not be written. */
  warnIntervalMs?: number;
  now?: () => number;
}

/** A live reader of the trail: told of every record written on any replica after the one it started from. */
export interface AuditTail {
  stop(): void;
}

/**
 * The audit trail as the router writes and reads it. {@link AuditLog.record} never blocks and never throws: records
 * wait in a bounded buffer and are written in batches; a store that fails costs the records of that batch and one
 * warning per interval, never a call.
 */
export interface AuditLog {
  /** Queues one record. */
  record(record: AuditRecord): void;
  /** A page of records matching `query`, newest first (those still queued are not written yet). */
  query(query: AuditQuery): Promise<AuditPage>;
  /**
   * Follows the trail from the record after `afterId` (the newest when absent): `onRecords` with each batch in
   * order, from every replica. Catching up after a lost notification reads what was missed.
   */
  tail(afterId: string | undefined, onRecords: (records: StoredAuditRecord[]) => void): Promise<AuditTail>;
  /** Writes what is queued now (tests, shutdown). */
  flush(): Promise<void>;
  /** Writes what is queued, stops the timers and the tail's subscription. */
  close(): Promise<void>;
}

/** Records one tail reads per query: a reader far behind catches up in steps of this size. */
const TAIL_PAGE = 500;

/** Creates the {@link AuditLog} over its table, and starts deleting records past their retention. */
export function createAuditLog(options: AuditLogOptions): AuditLog {
  const { table, logger } = options;
  const now = options.now ?? Date.now;
  const maxBuffered = options.maxBuffered ?? 10_000;
  // A statement costs the embedded store about 0.4 ms whatever it holds, so a batch waits up to a second to fill:
  // a router serving a few hundred calls a second then writes a few statements a second, not a few per call.
  const batchSize = options.batchSize ?? RECORDS_PER_BATCH;
  const flushDelayMs = options.flushDelayMs ?? 1_000;
  const warnIntervalMs = options.warnIntervalMs ?? 60_000;
  let buffer: AuditRecord[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let lost = 0;
  let lastError = "";
  let lastWarning = Number.NEGATIVE_INFINITY;
  let closed = false;

  /** Warns of records lost, at most once per interval: a store down for an hour is one line a minute. */
  const warnLost = () => {
    if (lost === 0 || now() - lastWarning < warnIntervalMs) return;
    lastWarning = now();
    logger.warn({ lost, err: lastError }, "could not write audit records to the store; they are lost");
    lost = 0;
  };

  /**
   * Writes what is queued now, in batches. Records queued while a batch is written wait for the next flush (a full
   * batch, the timer, or close) rather than following at once: under load, writing them straight away turned each
   * batch into a train of tiny ones, each paying a statement's whole cost for a handful of rows.
   */
  const writeOnce = async (all: boolean): Promise<void> => {
    let left = all ? Number.POSITIVE_INFINITY : buffer.length;
    while (buffer.length > 0 && left > 0) {
      const batch = buffer.slice(0, Math.min(batchSize, left));
      buffer = buffer.slice(batch.length);
      left -= batch.length;
      try {
        await table.insert(batch);
      } catch (error) {
        lost += batch.length;
        lastError = TrestleError.from(error).rawMessage;
      }
    }
    warnLost();
  };

  /** Starts writing what is queued (unless a write is under way); `all` also writes what is queued meanwhile. */
  const write = (all: boolean): Promise<void> => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    writing ??= writeOnce(all).finally(() => {
      writing = undefined;
      // What came in during the write goes with the next batch: at once when that is full, else on the timer.
      if (buffer.length >= batchSize) void write(false);
      else if (buffer.length > 0) schedule();
    });
    return writing;
  };

  /** Writes everything queued, including what is queued while it writes (tests, shutdown). */
  const flush = async (): Promise<void> => {
    while (writing) await writing;
    await write(true);
  };

  const schedule = () => {
    if (flushTimer || closed) return;
    flushTimer = setTimeout(() => void write(false), flushDelayMs);
    flushTimer.unref();
  };

  const sweep = async () => {
    try {
      // In steps, so one sweep never holds a long lock; several replicas sweeping at once move and delete nothing
      // twice. What routers of the row-per-record layout wrote joins the batches first, then ages with them.
      while ((await table.adoptRowRecords(5_000)) === 5_000);
      while ((await table.deleteOlderThan(now() - options.retentionMs, 100)) === 100);
    } catch (error) {
      lastError = TrestleError.from(error).rawMessage;
      logger.warn(
        { err: lastError },
        "could not sweep the audit trail (older rows moved, records past retention deleted)",
      );
    }
  };
  const sweepTimer = setInterval(() => void sweep(), options.sweepIntervalMs ?? 10 * 60_000);
  sweepTimer.unref();
  void sweep();

  // One subscription per process, shared by every tail; made when the first tail starts.
  const wakers = new Set<() => void>();
  let subscription: Promise<() => Promise<void>> | undefined;
  const subscribe = () => {
    subscription ??= table.subscribe(
      () => {
        for (const wake of wakers) wake();
      },
      () => {
        for (const wake of wakers) wake();
      },
    );
    return subscription;
  };

  return {
    record(record) {
      if (closed) return;
      if (buffer.length >= maxBuffered) {
        lost += 1;
        lastError = "the audit buffer is full";
        warnLost();
        return;
      }
      buffer.push(record);
      if (buffer.length >= batchSize) {
        if (!writing) void write(false);
      } else schedule();
    },

    query: (query) => table.query(query),

    async tail(afterId, onRecords) {
      let cursor = afterId ?? (await table.lastId());
      let reading = false;
      let again = false;
      let stopped = false;
      const read = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            for (;;) {
              const records = await table.after(cursor, TAIL_PAGE);
              if (stopped || records.length === 0) break;
              cursor = (records[records.length - 1] as StoredAuditRecord).id;
              onRecords(records);
              if (records.length < TAIL_PAGE) break;
            }
          } while (again && !stopped);
        } catch (error) {
          logger.warn({ err: TrestleError.from(error).rawMessage }, "could not read the audit trail's tail");
        } finally {
          reading = false;
        }
      };
      const wake = () => void read();
      wakers.add(wake);
      await subscribe();
      void read();
      return {
        stop() {
          stopped = true;
          wakers.delete(wake);
        },
      };
    },

    flush,

    async close() {
      closed = true;
      clearInterval(sweepTimer);
      await flush();
      wakers.clear();
      const unsubscribe = await subscription?.catch(() => undefined);
      await unsubscribe?.();
    },
  };
}
