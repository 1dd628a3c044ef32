import type { EndedMcpSessionTable } from "../state/ended-mcp-sessions.js";
import type { EndedSessionLedger, SessionRegistry } from "./session-registry.js";

/** Clocks of replicas may differ by this much: a catch-up reads ends recorded this long before it lost track. */
const CLOCK_SKEW_MS = 60_000;

/** The ended sessions' table (in the store's database) as the ledger of ended MCP sessions. */
export function storeLedger(
  store: Pick<EndedMcpSessionTable, "endMcpSession" | "isMcpSessionEnded">,
): EndedSessionLedger {
  return {
    end: (digest, endedAt, expiresAt) => store.endMcpSession(digest, endedAt, expiresAt),
    isEnded: (digest, now) => store.isMcpSessionEnded(digest, now),
  };
}

/** Options for {@link followEndedSessions}. */
export interface FollowEndedSessionsOptions {
  clock?: () => number;
  /** Told when a catch-up after lost notifications failed (the sessions it missed end at their next check). */
  onCatchUpFailed?: (error: unknown) => void;
}

/**
 * Forgets here every session a client ends on any replica, as the store announces it: its GET stream closes and
 * its id is refused at once, not only once this replica asks the ledger. After notifications may have been lost,
 * catches up from the store. Resolves with the function that stops following.
 */
export async function followEndedSessions(
  store: Pick<EndedMcpSessionTable, "subscribeEndedMcpSessions" | "mcpSessionsEndedSince">,
  sessions: Pick<SessionRegistry, "forget">,
  options: FollowEndedSessionsOptions = {},
): Promise<() => Promise<void>> {
  const clock = options.clock ?? Date.now;
  let followingSince = clock();
  const catchUp = () => {
    const from = followingSince - CLOCK_SKEW_MS;
    followingSince = clock();
    store.mcpSessionsEndedSince(from).then(
      (digests) => {
        for (const digest of digests) sessions.forget(digest);
      },
      (error: unknown) => options.onCatchUpFailed?.(error),
    );
  };
  return store.subscribeEndedMcpSessions((digest) => sessions.forget(digest), catchUp);
}
