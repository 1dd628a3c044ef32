import { isSecretHeaderKey, scrubSecrets } from "@trestle/core";

/**
 * The secret values sent in one call, collected so that they can be scrubbed from any text that leaves the
 * bridge (results, events, error messages). A capability may echo what it received in an error message; this
 * set is what keeps that echo from reaching a user, an event subscriber or a log.
 */
export interface SecretValues {
  /** Adds a secret value, with the credential part of an `Authorization`-style value (`Bearer <token>`). */
  add(value: string | undefined): void;
  /** Adds every fragment of a secrets payload: the whole text, each line, and each `key=value` value. */
  addPayload(payload: string | undefined): void;
  /** `text` with every known secret value replaced by `[REDACTED]`. */
  scrub(text: string): string;
  /** `value` with every string inside it scrubbed: a copy when a secret is known, else `value` itself. */
  scrubDeep<T>(value: T): T;
  /** How many secret values are known: 0 means there is nothing to scrub. */
  readonly size: number;
}

const schemeAndCredential = /^\s*\S+\s+(\S+)\s*$/;
const keyValueLine = /^[^=:]+[=:]\s*(.+)$/;

/** Creates an empty {@link SecretValues}. */
export function createSecretValues(): SecretValues {
  const values = new Set<string>();

  function add(value: string | undefined): void {
    if (!value) return;
    values.add(value);
    const trimmed = value.trim();
    if (trimmed !== value) values.add(trimmed);
    const credential = schemeAndCredential.exec(value)?.[1];
    if (credential) values.add(credential);
  }

  function collectJsonStrings(value: unknown): void {
    if (typeof value === "string") add(value);
    else if (Array.isArray(value)) for (const item of value) collectJsonStrings(item);
    else if (value !== null && typeof value === "object")
      for (const item of Object.values(value)) collectJsonStrings(item);
  }

  function scrub(text: string): string {
    return values.size === 0 ? text : scrubSecrets(text, values);
  }

  function scrubDeep<T>(value: T): T {
    // Most calls carry no secret: their events go out as they are, without a copy.
    if (values.size === 0) return value;
    if (typeof value === "string") return scrub(value) as T;
    if (Array.isArray(value)) return value.map((item) => scrubDeep(item)) as T;
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = scrubDeep(item);
      return out as T;
    }
    return value;
  }

  return {
    add,
    addPayload(payload) {
      if (!payload) return;
      add(payload);
      for (const line of payload.split(/\r?\n/)) {
        add(line);
        add(keyValueLine.exec(line)?.[1]);
      }
      try {
        collectJsonStrings(JSON.parse(payload));
      } catch {
        // Not JSON: the lines above already cover it.
      }
    },
    scrub,
    scrubDeep,
    get size() {
      return values.size;
    },
  };
}

/**
 * Adds the values of credential-looking call metadata (for example an `authorization` header the router forwards
 * from the MCP client) to `secrets`, so that a capability echoing them back cannot leak them into a result, an
 * event or a log.
 */
export function addSecretMetadata(
  secrets: SecretValues,
  metadata: Readonly<Record<string, string>> | undefined,
): void {
  for (const [key, value] of Object.entries(metadata ?? {})) if (isSecretHeaderKey(key)) secrets.add(value);
}
