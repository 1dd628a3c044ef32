import { isSecretHeaderKey, scrubSecrets } from "@trestle/core/redaction";

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

/**
 * The set behind {@link createSecretValues}. A class with a set made on the first value: every tool call creates one,
 * and most calls never add a value, so an empty one costs one small object.
 */
class SecretValueSet implements SecretValues {
  private values: Set<string> | undefined;

  add(value: string | undefined): void {
    if (!value) return;
    this.values ??= new Set();
    this.values.add(value);
    const trimmed = value.trim();
    if (trimmed !== value) this.values.add(trimmed);
    const credential = schemeAndCredential.exec(value)?.[1];
    if (credential) this.values.add(credential);
  }

  addPayload(payload: string | undefined): void {
    if (!payload) return;
    this.add(payload);
    for (const line of payload.split(/\r?\n/)) {
      this.add(line);
      this.add(keyValueLine.exec(line)?.[1]);
    }
    try {
      this.collectJsonStrings(JSON.parse(payload));
    } catch {
      // Not JSON: the lines above already cover it.
    }
  }

  // A method, not an arrow field: one set per tool call, kept by the event history with the call (failure paths
  // hand the set itself on, see safeError).
  scrub(text: string): string {
    return this.values === undefined || this.values.size === 0 ? text : scrubSecrets(text, this.values);
  }

  scrubDeep<T>(value: T): T {
    // Most calls carry no secret: their events go out as they are, without a copy.
    if (this.size === 0) return value;
    if (typeof value === "string") return this.scrub(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.scrubDeep(item)) as T;
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = this.scrubDeep(item);
      return out as T;
    }
    return value;
  }

  get size(): number {
    return this.values?.size ?? 0;
  }

  private collectJsonStrings(value: unknown): void {
    if (typeof value === "string") this.add(value);
    else if (Array.isArray(value)) for (const item of value) this.collectJsonStrings(item);
    else if (value !== null && typeof value === "object")
      for (const item of Object.values(value)) this.collectJsonStrings(item);
  }
}

/** Creates an empty {@link SecretValues}. */
export function createSecretValues(): SecretValues {
  return new SecretValueSet();
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
  if (!metadata) return;
  for (const key in metadata) if (isSecretHeaderKey(key)) secrets.add(metadata[key]);
}
