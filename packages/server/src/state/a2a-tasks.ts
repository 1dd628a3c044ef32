import type { StoreSqlClient } from "@trestle/registry";

/** An A2A task as the server keeps it (table `trestle_a2a_tasks`). */
export interface StoredA2aTask {
  id: string;
  namespace: string;
  /** The principal that started it: the only one it answers. */
  principal: string;
  contextId: string;
  /** The task's state, as A2A JSON names it (`TASK_STATE_WORKING`). */
  state: string;
  /** The task, as A2A JSON. */
  document: Record<string, unknown>;
  updatedAt?: number;
}

/**
 * The A2A front's tasks, in the store's database: any replica answers `GetTask`, `CancelTask` and
 * `SubscribeToTask` from here, and the replica running a call polls its row to see a cancellation another replica
 * wrote. Failures reject as the store's do (`Unavailable` when the database cannot be reached).
 */
export interface A2aTaskTable {
  /**
   * Creates or replaces an A2A task the router's A2A front started (its whole document, as A2A JSON). A task of
   * that id owned by another principal or namespace is left as it is: `false` then. So is a task stored as
   * `TASK_STATE_CANCELED` unless this save cancels it too: a cancellation (another replica's) is never undone by a
   * later update of the replica running the call.
   */
  saveA2aTask(task: StoredA2aTask, now: number): Promise<boolean>;
  /** The A2A task with this id, or `undefined`. The caller compares its owner. */
  loadA2aTask(id: string): Promise<StoredA2aTask | undefined>;
  /** A principal's A2A tasks in a namespace, newest first; only those of `contextId` when given. */
  listA2aTasks(
    namespace: string,
    principal: string,
    options: { contextId?: string; limit: number },
  ): Promise<StoredA2aTask[]>;
  /**
   * How many A2A tasks `principal` holds in the store (a quota's count): one row read, kept exact by the table's
   * triggers. It includes tasks past their retention that the sweep has not removed yet.
   */
  countA2aTasks(principal: string): Promise<number>;
  /** Removes A2A tasks not updated since `updatedBefore`. @returns how many. */
  removeA2aTasks(updatedBefore: number): Promise<number>;
}

/** A task's row (a bigint may come back as a string, a document as JSON text). */
interface A2aTaskRow {
  id: string;
  namespace: string;
  principal: string;
  context_id: string;
  state: string;
  document: Record<string, unknown> | string;
  updated_at: string | number;
}

function a2aTaskFromRow(row: A2aTaskRow): StoredA2aTask {
  return {
    id: row.id,
    namespace: row.namespace,
    principal: row.principal,
    contextId: row.context_id,
    state: row.state,
    document:
      typeof row.document === "string" ? (JSON.parse(row.document) as Record<string, unknown>) : row.document,
    updatedAt: Number(row.updated_at),
  };
}

/** The A2A tasks' table on the store's SQL client (the server's migrations made it). */
export function createA2aTaskTable(sql: Pick<StoreSqlClient, "query">): A2aTaskTable {
  return {
    async saveA2aTask(task, now) {
      // Another owner's row of the same id is never taken over: the update applies only to the owner's own.
      const rows = await sql.query<{ id: string }>(
        `INSERT INTO trestle_a2a_tasks (id, namespace, principal, context_id, state, document, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT (id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state,
           document = EXCLUDED.document, updated_at = EXCLUDED.updated_at
         WHERE trestle_a2a_tasks.principal = EXCLUDED.principal AND trestle_a2a_tasks.namespace = EXCLUDED.namespace
           AND (trestle_a2a_tasks.state <> 'TASK_STATE_CANCELED' OR EXCLUDED.state = 'TASK_STATE_CANCELED')
         RETURNING id`,
        [
          task.id,
          task.namespace,
          task.principal,
          task.contextId,
          task.state,
          JSON.stringify(task.document),
          now,
        ],
      );
      return rows.length > 0;
    },

    async loadA2aTask(id) {
      const rows = await sql.query<A2aTaskRow>(
        `SELECT id, namespace, principal, context_id, state, document, updated_at FROM trestle_a2a_tasks
         WHERE id = $1`,
        [id],
      );
      return rows[0] ? a2aTaskFromRow(rows[0]) : undefined;
    },

    async listA2aTasks(namespace, principal, options) {
      const rows = options.contextId
        ? await sql.query<A2aTaskRow>(
            `SELECT id, namespace, principal, context_id, state, document, updated_at FROM trestle_a2a_tasks
             WHERE namespace = $1 AND principal = $2 AND context_id = $3 ORDER BY updated_at DESC LIMIT $4`,
            [namespace, principal, options.contextId, options.limit],
          )
        : await sql.query<A2aTaskRow>(
            `SELECT id, namespace, principal, context_id, state, document, updated_at FROM trestle_a2a_tasks
             WHERE namespace = $1 AND principal = $2 ORDER BY updated_at DESC LIMIT $3`,
            [namespace, principal, options.limit],
          );
      return rows.map(a2aTaskFromRow);
    },

    async countA2aTasks(principal) {
      const rows = await sql.query<{ tasks: string | number }>(
        "SELECT tasks FROM trestle_a2a_task_counts WHERE principal = $1",
        [principal],
      );
      return Number(rows[0]?.tasks ?? 0);
    },

    async removeA2aTasks(updatedBefore) {
      const rows = await sql.query<{ id: string }>(
        "DELETE FROM trestle_a2a_tasks WHERE updated_at < $1 RETURNING id",
        [updatedBefore],
      );
      return rows.length;
    },
  };
}
