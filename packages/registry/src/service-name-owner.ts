import { Code, TrestleError } from "@trestle/core";
import type { SqlExecutor } from "./sql-client.js";
import type { RegistrationActor } from "./store.js";

/**
 * Binds a service name to its owner as a registration under it is recorded (in the registration's transaction,
 * under the registration lock): the principal the configuration names for it, else the one recorded (the first
 * that registered it), else — nobody holding it yet — the registering principal, recorded now. The owner stays
 * when every instance is gone (deregistered, or removed as stale), so another principal cannot take the name
 * over by waiting; only the owner or an admin registers under it.
 *
 * @returns the name's owner once this registration is recorded.
 * @throws TrestleError `PermissionDenied` when the name belongs to another principal and the actor is no admin
 * (nothing written).
 */
export async function claimServiceName(
  tx: SqlExecutor,
  serviceName: string,
  actor: RegistrationActor,
  configuredOwner: string | undefined,
  now: number,
): Promise<string> {
  const [row] = await tx.query<{ owner: string }>(
    "SELECT owner FROM trestle_service_owners WHERE service_name = $1 FOR UPDATE",
    [serviceName],
  );
  const owner = configuredOwner ?? row?.owner;
  if (owner !== undefined && owner !== actor.principal && !actor.admin) {
    throw new TrestleError(
      `The service name '${serviceName}' belongs to another credential; only that credential (or an admin token) may register under it`,
      Code.PermissionDenied,
    );
  }
  const kept = owner ?? actor.principal;
  if (row?.owner !== kept) {
    await tx.query(
      `INSERT INTO trestle_service_owners (service_name, owner, claimed_at) VALUES ($1, $2, $3)
       ON CONFLICT (service_name) DO UPDATE SET owner = EXCLUDED.owner, claimed_at = EXCLUDED.claimed_at`,
      [serviceName, kept, now],
    );
  }
  return kept;
}
