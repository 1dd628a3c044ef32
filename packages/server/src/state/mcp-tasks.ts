import type { StoreSqlClient } from "@trestle/registry";

/** An MCP task (the `io.modelcontextprotocol/tasks` extension) as the server keeps it (table `trestle_mcp_tasks`). */
export interface StoredMcpTask {
  id: string;
  namespace: string;
  /** The principal that started it: only it may read, update or cancel it. */
  principal: string;
  /** `working`, `input_required`, `completed`, `failed` or `cancelled`. */
  status: string;
  /** The task as `tasks/get` answers it (its result, error or input requests inlined). */
  document: Record<string, unknown>;
  createdAt: number;
  /** When the task may be forgotten (epoch ms). */
  expiresAt: number;
}

/** What clients asked of an MCP task, left for the replica running it. */
export interface McpTaskRequests {
  cancel?: boolean;
  /** Answers to its input requests, by key. */
  inputResponses?: Record<string, unknown>;
}

/**
 * The MCP front's tasks, in the store's database: any replica answers `tasks/get` from here; `tasks/update` and
 * `tasks/cancel` on any replica leave their requests in the task's row, which the replica running the call takes.
 * Failures reject as the store's do (`Unavailable` when the database cannot be reached).
 */
export interface McpTaskTable {
  /** Creates or replaces an MCP task's state (its requests stay). */
  saveMcpTask(task: StoredMcpTask, now: number): Promise<void>;
  /** The MCP task with this id, or `undefined` (also once it expired). */
  loadMcpTask(id: string, now: number): Promise<StoredMcpTask | undefined>;
  /**
   * Leaves a client's request for the replica running the task (answers merge with those not taken yet).
   * @returns false when no such task exists.
   */
  requestMcpTask(id: string, requests: McpTaskRequests): Promise<boolean>;
  /** Takes (and clears) what clients asked of an MCP task since the last take. */
  takeMcpTaskRequests(id: string): Promise<McpTaskRequests>;
  /** Removes MCP tasks that expired before `now`. @returns how many. */
  removeExpiredMcpTasks(now: number): Promise<number>;
  /** How many MCP tasks of `principal` have not expired at `now` (a quota's count). */
  countMcpTasks(principal: string, now: number): Promise<number>;
}

/** A task's row (a bigint may come back as a string, a document as JSON text). */
interface McpTaskRow {
  id: string;
  namespace: string;
  principal: string;
  status: string;
  document: Record<string, unknown> | string;
  created_at: string | number;
  expires_at: string | number;
}

const parsedJson = <T>(value: T | string): T =>
  typeof value === "string" ? (JSON.parse(value) as T) : value;

function mcpTaskFromRow(row: McpTaskRow): StoredMcpTask {
  return {
    id: row.id,
    namespace: row.namespace,
    principal: row.principal,
    status: row.status,
    document: parsedJson(row.document),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

/** The MCP tasks' table on the store's SQL client (the server's migrations made it). */
export function createMcpTaskTable(sql: Pick<StoreSqlClient, "query">): McpTaskTable {
  return {
    async saveMcpTask(task, now) {
      await sql.query(
        `INSERT INTO trestle_mcp_tasks (id, namespace, principal, status, document, created_at, updated_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, document = EXCLUDED.document,
           updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at`,
        [
          task.id,
          task.namespace,
          task.principal,
          task.status,
          JSON.stringify(task.document),
          task.createdAt,
          now,
          task.expiresAt,
        ],
      );
    },

    async loadMcpTask(id, now) {
      const rows = await sql.query<McpTaskRow>(
        `SELECT id, namespace, principal, status, document, created_at, expires_at FROM trestle_mcp_tasks
         WHERE id = $1 AND expires_at > $2`,
        [id, now],
      );
      return rows[0] ? mcpTaskFromRow(rows[0]) : undefined;
    },

    async requestMcpTask(id, requests) {
      const rows = await sql.query<{ id: string }>(
        `UPDATE trestle_mcp_tasks SET requests = jsonb_build_object(
           'cancel', coalesce((requests ->> 'cancel')::boolean, false) OR $2::boolean,
           'inputResponses', coalesce(requests -> 'inputResponses', '{}'::jsonb) || $3::jsonb)
         WHERE id = $1 RETURNING id`,
        [id, requests.cancel === true, JSON.stringify(requests.inputResponses ?? {})],
      );
      return rows.length > 0;
    },

    async takeMcpTaskRequests(id) {
      const rows = await sql.query<{ requests: McpTaskRequests | string }>(
        `WITH taken AS (SELECT id, requests FROM trestle_mcp_tasks WHERE id = $1 FOR UPDATE)
         UPDATE trestle_mcp_tasks AS t SET requests = '{}'::jsonb FROM taken WHERE t.id = taken.id
         RETURNING taken.requests`,
        [id],
      );
      const taken = rows[0] ? parsedJson(rows[0].requests) : {};
      const out: McpTaskRequests = {};
      if (taken.cancel) out.cancel = true;
      if (taken.inputResponses && Object.keys(taken.inputResponses).length > 0) {
        out.inputResponses = taken.inputResponses;
      }
      return out;
    },

    async removeExpiredMcpTasks(now) {
      const rows = await sql.query<{ id: string }>(
        "DELETE FROM trestle_mcp_tasks WHERE expires_at <= $1 RETURNING id",
        [now],
      );
      return rows.length;
    },

    async countMcpTasks(principal, now) {
      const rows = await sql.query<{ count: string | number }>(
        "SELECT count(*) AS count FROM trestle_mcp_tasks WHERE principal = $1 AND expires_at > $2",
        [principal, now],
      );
      return Number(rows[0]?.count ?? 0);
    },
  };
}
