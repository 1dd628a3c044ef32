import type { SqlClient } from "./sql-client.js";
import type { Store } from "./store.js";

/** Leases: one replica of many runs a periodic job (the prober's rounds) while it holds one. */
export type SqlLeases = Pick<Store, "claimLease" | "releaseLease">;

/** The leases' part of the store on `client`. */
export function createSqlLeases(client: SqlClient): SqlLeases {
  return {
    async claimLease(name, owner, now, ttlMs) {
      const rows = await client.query(
        `INSERT INTO trestle_leases (name, owner, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
          WHERE trestle_leases.owner = EXCLUDED.owner OR trestle_leases.expires_at < $4
         RETURNING owner`,
        [name, owner, now + ttlMs, now],
      );
      return rows.length > 0;
    },

    async releaseLease(name, owner) {
      await client.query("DELETE FROM trestle_leases WHERE name = $1 AND owner = $2", [name, owner]);
    },
  };
}
