import type { RegistryLogger } from "./logger.js";
import {
  type ForwardRow,
  holdsSecretsInClear,
  missingSecretsKey,
  openForward,
  sealedUpstreamOf,
  sealForward,
} from "./sealed-forwards.js";
import type { SecretsKeyring } from "./secrets-keyring.js";
import type { SqlClient } from "./sql-client.js";

type Row = ForwardRow & { document: Record<string, unknown> | string };

const SELECT_FORWARDS =
  "SELECT id, namespace, name, document FROM trestle_catalog_entries WHERE kind = 'forward'";

function parsed(row: Row): ForwardRow {
  return { ...row, document: typeof row.document === "string" ? JSON.parse(row.document) : row.document };
}

/** Whether a stored forward must be written again: in clear, or sealed with a key that is no longer current. */
function needsSealing(row: ForwardRow, keyring: SecretsKeyring): boolean {
  const sealed = sealedUpstreamOf(row.document);
  return sealed === undefined ? row.document.upstream !== undefined : sealed.keyId !== keyring.keyId;
}

/**
 * Brings the forwards the store holds under the current secrets key, when the store opens: seals those stored in
 * clear, and seals again those sealed with an older key (a rotation), in one transaction, without a change
 * notification (what the catalog reads is the same). After sealing clear ones it rewrites the table
 * (`VACUUM FULL`), so that their clear copies do not stay in its free space.
 *
 * Without a keyring (PostgreSQL with no key configured) it only checks: a forward whose upstream holds secrets,
 * in clear or sealed, stops the store from opening, since it could be neither protected nor read.
 *
 * @throws TrestleError `FailedPrecondition` naming the forward and what to configure; as `openForward` for a
 * forward sealed with a key the keyring lacks.
 */
export async function sealStoredForwards(
  client: SqlClient,
  keyring: SecretsKeyring | undefined,
  logger: RegistryLogger,
): Promise<void> {
  const forwards = (await client.query<Row>(SELECT_FORWARDS)).map(parsed);
  if (keyring === undefined) {
    for (const forward of forwards) {
      if (holdsSecretsInClear(forward.document)) throw missingSecretsKey(forward);
      // One sealed by a router that had a key: this one cannot read it (the error names the key).
      openForward(forward, undefined);
    }
    return;
  }
  if (!forwards.some((forward) => needsSealing(forward, keyring))) return;
  const { clear, rotated } = await client.transaction(async (tx) => {
    const counts = { clear: 0, rotated: 0 };
    const locked = (await tx.query<Row>(`${SELECT_FORWARDS} FOR UPDATE`)).map(parsed);
    for (const forward of locked) {
      if (!needsSealing(forward, keyring)) continue;
      const wasSealed = sealedUpstreamOf(forward.document) !== undefined;
      const inClear = { ...forward, document: openForward(forward, keyring) };
      await tx.query(
        "UPDATE trestle_catalog_entries SET document = $2::text::jsonb WHERE kind = 'forward' AND id = $1",
        [forward.id, JSON.stringify(sealForward(inClear, keyring))],
      );
      if (wasSealed) counts.rotated++;
      else counts.clear++;
    }
    return counts;
  });
  logger.info(
    { clear, rotated, keyId: keyring.keyId },
    "encrypted the forwards' upstreams with the current secrets key",
  );
  if (clear === 0) return;
  try {
    await client.exec("VACUUM FULL trestle_catalog_entries");
  } catch (error) {
    logger.warn(
      { err: (error as Error).message },
      "could not rewrite the catalog table after encrypting forwards; their former clear copies stay in its free space until PostgreSQL reuses it",
    );
  }
}
