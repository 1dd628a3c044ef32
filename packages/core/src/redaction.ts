/** What a redacted value is replaced with. */
export const REDACTED = "[REDACTED]";

/** What code is replaced with in events. */
export const REDACTED_CODE = "[CODE]";

/** Prefix of arguments that become headers (`wanaku_meta_X` → header `X`). */
export const META_ARGUMENT_PREFIX = "wanaku_meta_";

/** Prefix of arguments that carry credentials as headers (`wanaku_auth_X` → header `X`). */
export const AUTH_ARGUMENT_PREFIX = "wanaku_auth_";

/** The argument that carries a request body, where the tool declares it. */
export const BODY_ARGUMENT = "wanaku_body";

const secretArgumentKey = /password|secret|token|apikey|api_key|credentials/i;
const secretHeaderKey = /authorization|x-api-key|api-key|auth-token|bearer|cookie|session/i;

/** True when an argument named `key` holds a secret and must not be recorded. */
export function isSecretArgumentKey(key: string): boolean {
  return secretArgumentKey.test(key) || key.startsWith(AUTH_ARGUMENT_PREFIX);
}

/** True when a header named `key` holds a credential and must not be recorded. */
export function isSecretHeaderKey(key: string): boolean {
  return secretHeaderKey.test(key);
}

/**
 * Arguments as they may be recorded in an event or a log: `wanaku_auth_*` and `wanaku_meta_*` removed;
 * keys that look like secrets (`password`, `secret`, `token`, `apikey`, `api_key`, `credentials`) replaced with
 * `[REDACTED]`; other values turned into strings.
 */
export function redactArguments(args: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (key.startsWith(AUTH_ARGUMENT_PREFIX) || key.startsWith(META_ARGUMENT_PREFIX)) continue;
    if (value === null || value === undefined) continue;
    out[key] = secretArgumentKey.test(key) ? REDACTED : stringifyArgument(value);
  }
  return out;
}

/** Headers as they may be recorded: credential-looking names have their value replaced with `[REDACTED]`. */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) out[key] = secretHeaderKey.test(key) ? REDACTED : value;
  return out;
}

/** A secrets URI as it may be recorded: `[REDACTED]` when set, "" otherwise. */
export function redactSecretsUri(uri: string | undefined): string {
  return uri ? REDACTED : "";
}

/**
 * The way the contract turns an argument value into a string: strings as they are, objects and arrays as
 * JSON text, everything else with `String`.
 */
export function stringifyArgument(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * Replaces every occurrence of each secret value in `text` with `[REDACTED]`. Use it on text that came from
 * elsewhere (a service's error message may echo a credential it was sent). Values shorter than 4 characters
 * are left alone: replacing them would mangle ordinary text and protect nothing.
 */
export function scrubSecrets(text: string, secretValues: Iterable<string>): string {
  let out = text;
  const values = [...secretValues].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
  for (const value of values) out = out.split(value).join(REDACTED);
  return out;
}
