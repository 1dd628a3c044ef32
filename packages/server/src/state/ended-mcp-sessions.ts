import type { StoreSqlClient } from "@trestle/registry";

/** Where ended MCP sessions are announced: each notification's payload is the session's digest. */
export const ENDED_SESSION_CHANNEL = "trestle_ended_mcp_sessions";

/**
 * The MCP sessions clients ended (their `DELETE`), in the store's database, by a digest of each session's id: every
 * replica refuses an ended session's id until it would have expired anyway, also after a restart. Failures reject
 * as the store's do (`Unavailable` when the database cannot be reached).
 */
export interface EndedMcpSessionTable {
  /**
   * Records that a client ended an MCP session (its `DELETE`), by a digest of its id, until `expiresAt` (when its
   * id would have expired anyway), and tells every replica (see
   * {@link EndedMcpSessionTable.subscribeEndedMcpSessions}). Ends recorded earlier that are past their expiry go
   * at the same time.
   */
  endMcpSession(digest: string, endedAt: number, expiresAt: number): Promise<void>;
  /** Whether the MCP session with this digest was ended and would not have expired by `now`. */
  isMcpSessionEnded(digest: string, now: number): Promise<boolean>;
  /** Digests of the MCP sessions ended at or after `since` (to catch up after notifications were lost). */
  mcpSessionsEndedSince(since: number): Promise<string[]>;
  /**
   * Subscribes to MCP sessions ended on any replica (this process included): `onEnded` with each one's digest,
   * `onResync` when notifications may have been lost (the listening connection came back).
   */
  subscribeEndedMcpSessions(
    onEnded: (digest: string) => void,
    onResync: () => void,
  ): Promise<() => Promise<void>>;
}

/** The ended MCP sessions' table on the store's SQL client (the server's migrations made it). */
export function createEndedMcpSessionTable(
  sql: Pick<StoreSqlClient, "query" | "listen">,
): EndedMcpSessionTable {
  return {
    async endMcpSession(digest, endedAt, expiresAt) {
      // One statement, its own transaction: one round trip for the client's DELETE that waits on it, where a
      // transaction of three took five (on the embedded store each costs about as much as this whole statement).
      // Its data-modifying parts run whether or not the SELECT reads them; the notification leaves at commit.
      await sql.query(
        `WITH recorded AS (
           INSERT INTO trestle_ended_mcp_sessions (digest, ended_at, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (digest) DO NOTHING
         ), expired AS (
           DELETE FROM trestle_ended_mcp_sessions WHERE expires_at <= $2
         )
         SELECT pg_notify($4, $1)`,
        [digest, endedAt, expiresAt, ENDED_SESSION_CHANNEL],
      );
    },

    async isMcpSessionEnded(digest, now) {
      const rows = await sql.query<{ digest: string }>(
        "SELECT digest FROM trestle_ended_mcp_sessions WHERE digest = $1 AND expires_at > $2",
        [digest, now],
      );
      return rows.length > 0;
    },

    async mcpSessionsEndedSince(since) {
      const rows = await sql.query<{ digest: string }>(
        "SELECT digest FROM trestle_ended_mcp_sessions WHERE ended_at >= $1",
        [since],
      );
      return rows.map((row) => row.digest);
    },

    subscribeEndedMcpSessions(onEnded, onResync) {
      return sql.listen(ENDED_SESSION_CHANNEL, onEnded, onResync);
    },
  };
}
