import { Code, TrestleError } from "@trestle/core";
import { describeNamespace } from "./namespace-name.js";
import { isSealedValue, type SealedValue, type SecretsKeyring } from "./secrets-keyring.js";
import type { StoredEntry } from "./store.js";

/**
 * A forward's upstream at rest. Its arguments, environment and headers hold secrets (API keys, tokens), and its
 * command, URL and working directory may (a token in a query string, a user's path): with a secrets key, all of
 * the upstream but its `kind` is sealed into `sealed`, bound to the forward's id. Without a key (a PostgreSQL
 * store with none configured), only an upstream without arguments, environment or headers is stored, in clear.
 */

type Document = Record<string, unknown>;

/** What {@link sealForward} and {@link openForward} need to know of an entry. */
export interface ForwardRow {
  id: string;
  namespace: string;
  name: string;
  document: Document;
}

/** The associated data a forward's upstream is sealed with: its id, so a sealed upstream opens only there. */
function contextOf(id: string): string {
  return `trestle forward upstream:${id}`;
}

function upstreamOf(document: Document): Document | undefined {
  const upstream = document.upstream;
  return upstream !== null && typeof upstream === "object" ? (upstream as Document) : undefined;
}

/** The sealed upstream of a stored forward, if it is sealed. */
export function sealedUpstreamOf(document: Document): SealedValue | undefined {
  const sealed = upstreamOf(document)?.sealed;
  return isSealedValue(sealed) ? sealed : undefined;
}

/**
 * True when a forward in clear has arguments, environment variables, headers or an upstream credential
 * (`upstreamAuth`): what needs a secrets key.
 */
export function holdsSecretsInClear(document: Document): boolean {
  const upstream = upstreamOf(document);
  if (upstream === undefined || sealedUpstreamOf(document)) return false;
  const { args, env, headers, upstreamAuth } = upstream as {
    args?: unknown[];
    env?: Document;
    headers?: Document;
    upstreamAuth?: unknown;
  };
  return (
    (Array.isArray(args) && args.length > 0) ||
    (env !== undefined && Object.keys(env).length > 0) ||
    (headers !== undefined && Object.keys(headers).length > 0) ||
    (upstreamAuth !== undefined && upstreamAuth !== null)
  );
}

/** The refusal of a forward with secrets where there is no secrets key to encrypt them with. */
export function missingSecretsKey(forward: Pick<ForwardRow, "namespace" | "name">): TrestleError {
  return new TrestleError(
    `The forward '${forward.name}' in ${describeNamespace(forward.namespace)} has arguments, environment variables, headers or an upstream credential, and this router has no secrets key to encrypt them with; configure secretsKey or secretsKeyFile (the same on every replica) and start again`,
    Code.FailedPrecondition,
  );
}

/**
 * The forward's document as it is stored: its upstream sealed with the keyring's current key (whatever the
 * upstream holds), or in clear without a keyring when it holds no secrets.
 *
 * @throws TrestleError `FailedPrecondition` without a keyring when the upstream has arguments, environment or
 * headers.
 */
export function sealForward(forward: ForwardRow, keyring: SecretsKeyring | undefined): Document {
  const upstream = upstreamOf(forward.document);
  if (upstream === undefined || sealedUpstreamOf(forward.document)) return forward.document;
  if (keyring === undefined) {
    if (holdsSecretsInClear(forward.document)) throw missingSecretsKey(forward);
    return forward.document;
  }
  const { kind, ...rest } = upstream;
  const sealed = keyring.seal(JSON.stringify(rest), contextOf(forward.id));
  return { ...forward.document, upstream: { kind, sealed } };
}

/**
 * The forward's document with its upstream in clear, as the catalog works with it. A document stored in clear
 * (before forwards were sealed) comes back as it is.
 *
 * @throws TrestleError `FailedPrecondition` when the keyring lacks the key it was sealed with (naming the
 * forward and the key's id, and how to give the router that key); `DataLoss` when it does not authenticate.
 */
export function openForward(forward: ForwardRow, keyring: SecretsKeyring | undefined): Document {
  const sealed = sealedUpstreamOf(forward.document);
  if (sealed === undefined) return forward.document;
  if (keyring === undefined || !keyring.holds(sealed.keyId)) {
    throw new TrestleError(
      `The forward '${forward.name}' in ${describeNamespace(forward.namespace)} is encrypted with secrets key ${sealed.keyId}, which this router does not have; configure that key (secretsKey, or previousSecretsKeys while rotating) and start again`,
      Code.FailedPrecondition,
    );
  }
  let opened: Document;
  try {
    opened = JSON.parse(keyring.open(sealed, contextOf(forward.id))) as Document;
  } catch (error) {
    const cause = TrestleError.from(error);
    throw new TrestleError(
      `The forward '${forward.name}' in ${describeNamespace(forward.namespace)} cannot be decrypted: ${cause.rawMessage}`,
      cause.code === Code.FailedPrecondition ? Code.FailedPrecondition : Code.DataLoss,
      { cause: error },
    );
  }
  const kind = upstreamOf(forward.document)?.kind;
  return { ...forward.document, upstream: { kind, ...opened } };
}

/** A stored entry with a forward's upstream opened; other kinds as they are. @throws as {@link openForward}. */
export function openEntry(entry: StoredEntry, keyring: SecretsKeyring | undefined): StoredEntry {
  return entry.kind === "forward" ? { ...entry, document: openForward(entry, keyring) } : entry;
}

/**
 * As {@link openEntry}, for an entry on its way out (removed): one that cannot be opened comes back with its
 * upstream's kind alone, so that removing a forward never fails for want of its key (the way out for a forward
 * sealed with a key that is gone).
 */
export function openRemovedEntry(entry: StoredEntry, keyring: SecretsKeyring | undefined): StoredEntry {
  try {
    return openEntry(entry, keyring);
  } catch {
    const kind = upstreamOf(entry.document)?.kind;
    return { ...entry, document: { ...entry.document, upstream: { kind } } };
  }
}
