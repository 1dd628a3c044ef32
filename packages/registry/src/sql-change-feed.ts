import type { SqlClient, SqlExecutor } from "./sql-client.js";
import type { StoreChange } from "./store.js";

/** The NOTIFY channel that carries {@link StoreChange}s. */
export const CHANGE_CHANNEL = "trestle_changes";

/** The next value of the version every write to the catalog or the registry takes. */
export const NEXT_VERSION = "nextval('trestle_change_version')";

/** Publishes a change on the change feed; it reaches every subscriber when the transaction commits. */
export async function publish(tx: SqlExecutor, change: StoreChange): Promise<void> {
  await tx.query("SELECT pg_notify($1, $2)", [CHANGE_CHANNEL, JSON.stringify(change)]);
}

/** Takes a version for a deletion (a deleted row has no version of its own left to bump). */
export async function nextVersion(tx: SqlExecutor): Promise<number> {
  const [row] = await tx.query<{ v: number | string }>(`SELECT ${NEXT_VERSION} AS v`);
  return Number(row?.v);
}

/**
 * Listens to the change feed: `onChange` for every committed change, `onResync` when notifications may have been
 * lost (the listening connection came back, or a payload that is not ours arrived on the channel).
 */
export function subscribeToChanges(
  client: Pick<SqlClient, "listen">,
  onChange: (change: StoreChange) => void,
  onResync: () => void,
): Promise<() => Promise<void>> {
  return client.listen(
    CHANGE_CHANNEL,
    (payload) => {
      let change: StoreChange;
      try {
        change = JSON.parse(payload) as StoreChange;
      } catch {
        // Someone else's NOTIFY on our channel: notifications lost to us, so resynchronise.
        onResync();
        return;
      }
      onChange(change);
    },
    onResync,
  );
}
