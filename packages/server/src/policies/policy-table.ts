import type { PolicyRule } from "@trestle/policy";
import type { StoreSqlClient } from "@trestle/registry";

/** Where a change of the stored policy is announced; the payload is its new revision. */
export const POLICY_CHANNEL = "trestle_policies";

/** The policy rules managed through the management API, as stored (one document, shared by the replicas). */
export interface StoredPolicy {
  /** The rules that follow the configured ones, in order. */
  rules: PolicyRule[];
  /** The default the API set; `null` leaves the configured `policyDefault`. */
  default: "allow" | "deny" | null;
  /** Increases with every change (0: never set). */
  revision: number;
  /** Epoch ms of the last change (0: never set). */
  updatedAt: number;
  /** The principal that made it ("" when never set). */
  updatedBy: string;
}

/** The stored policy before any change through the API. */
export const EMPTY_STORED_POLICY: StoredPolicy = Object.freeze({
  rules: [],
  default: null,
  revision: 0,
  updatedAt: 0,
  updatedBy: "",
}) as StoredPolicy;

/** The stored policy's table on the store's SQL client. Failures reject as the store's do. */
export interface PolicyTable {
  load(): Promise<StoredPolicy>;
  /** Replaces the stored rules and default, announces the change to every replica; returns what was stored. */
  save(
    rules: readonly PolicyRule[],
    defaultEffect: "allow" | "deny" | null,
    by: string,
    at: number,
  ): Promise<StoredPolicy>;
  /** Subscribes to changes made on any replica; `onResync` when notifications may have been lost. */
  subscribe(onChanged: () => void, onResync: () => void): Promise<() => Promise<void>>;
}

interface PolicyRow {
  rules: PolicyRule[] | string;
  default_effect: string | null;
  revision: string | number;
  updated_at: string | number;
  updated_by: string;
}

function fromRow(row: PolicyRow): StoredPolicy {
  return {
    rules: (typeof row.rules === "string" ? JSON.parse(row.rules) : row.rules) as PolicyRule[],
    default: row.default_effect === "allow" || row.default_effect === "deny" ? row.default_effect : null,
    revision: Number(row.revision),
    updatedAt: Number(row.updated_at),
    updatedBy: row.updated_by,
  };
}

/** The one row's key. */
const ROW = "api";

/** Creates the {@link PolicyTable} on `sql` (the server's migrations made the table). */
export function createPolicyTable(sql: Pick<StoreSqlClient, "query" | "listen">): PolicyTable {
  return {
    async load() {
      const rows = await sql.query<PolicyRow>(
        "SELECT rules, default_effect, revision, updated_at, updated_by FROM trestle_policies WHERE id = $1",
        [ROW],
      );
      return rows[0] ? fromRow(rows[0]) : EMPTY_STORED_POLICY;
    },

    async save(rules, defaultEffect, by, at) {
      // One statement: the change and its announcement commit together.
      const rows = await sql.query<PolicyRow & { notified: unknown }>(
        `WITH saved AS (
           INSERT INTO trestle_policies (id, rules, default_effect, revision, updated_at, updated_by)
           VALUES ($1, $2::jsonb, $3, 1, $4, $5)
           ON CONFLICT (id) DO UPDATE SET rules = EXCLUDED.rules, default_effect = EXCLUDED.default_effect,
             revision = trestle_policies.revision + 1, updated_at = EXCLUDED.updated_at,
             updated_by = EXCLUDED.updated_by
           RETURNING rules, default_effect, revision, updated_at, updated_by
         )
         SELECT saved.*, pg_notify($6, saved.revision::text) AS notified FROM saved`,
        [ROW, JSON.stringify(rules), defaultEffect, at, by, POLICY_CHANNEL],
      );
      return fromRow(rows[0] as PolicyRow);
    },

    subscribe(onChanged, onResync) {
      return sql.listen(POLICY_CHANNEL, () => onChanged(), onResync);
    },
  };
}
