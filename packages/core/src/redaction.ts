import { Code, TrestleError } from "./error.js";
import type { ToolCallEvent, ToolCallStartedEvent } from "./events.js";

/** What a redacted value is replaced with. */
export const REDACTED = "[REDACTED]";

/** What code is replaced with in events. */
export const REDACTED_CODE = "[CODE]";

/**
 * The prefix the Wanaku contract reserves for arguments that carry credentials (`wanaku_auth_X`). Only a
 * redaction rule here, for every protocol: such an argument is recorded as `[REDACTED]` and its value scrubbed
 * whatever its name says, since a value redacted by mistake costs nothing and a recorded credential is a leak.
 * What the prefix means on the wire is `@trestle/wanaku`'s.
 */
const CREDENTIAL_ARGUMENT_PREFIX = "wanaku_auth_";

/*
 * Which names hold a secret. A name is cut into words (at `-`, `_`, `.`, spaces and camelCase humps) and
 * lower-cased; `squashed` is its words run together (`X-Api-Key` → `xapikey`). A name is secret when:
 * - `squashed` contains a word that is never harmless: password, passwd, passphrase, secret, credential,
 *   apikey, privatekey (`db_password`, `client_secret`, `myApiKey`, `private-key`);
 * - or `squashed` ends with a credential's usual name: token, pwd, cookie, authorization, sessionid, jwt,
 *   accesskey, bearer (`access_token`, `X-Auth-Token`, `set-cookie`, `Proxy-Authorization`, `JSESSIONID`);
 * - or its last word is auth, session or cookies (`basic_auth`, `session`).
 * Names that merely contain one of these as the start of another word stay readable: `tokens_used`,
 * `max_tokens`, `token_count`, `token_type`, `session_timeout`, `cookie_policy`, `oauth_provider`, `author`,
 * `access_key_id`. The cost of this rule is a few harmless names redacted (`secretary`, `api_key_id`): a
 * redacted value is an inconvenience, a recorded secret is a leak.
 */
const SECRET_ANYWHERE = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "credential",
  "apikey",
  "privatekey",
] as const;
const SECRET_ENDINGS = [
  "token",
  "pwd",
  "cookie",
  "authorization",
  "sessionid",
  "jwt",
  "accesskey",
  "bearer",
] as const;
const SECRET_LAST_WORDS: ReadonlySet<string> = new Set(["auth", "session", "cookies"]);

/** A name that is one lower-case word already (most argument names): nothing to split. */
const ONE_LOWER_CASE_WORD = /^[a-z0-9]+$/;

/** The lower-case words of a name: `X-Api-Key` → x, api, key; `accessToken` → access, token. */
function nameWords(name: string): string[] {
  if (ONE_LOWER_CASE_WORD.test(name)) return [name];
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
}

/**
 * True when an argument, header, field or property named `name` holds a credential, by the rule above:
 * case-insensitive, with `-`, `_`, `.` and camelCase spellings alike (`api_key`, `Api-Key`, `apiKey`, `APIKEY`).
 *
 * @example
 * ```ts
 * isSecretName("X-API-Key"); // true
 * isSecretName("refresh_token"); // true
 * isSecretName("tokens_used"); // false
 * ```
 */
export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  if (words.length === 0) return false;
  const squashed = words.join("");
  if (SECRET_ANYWHERE.some((word) => squashed.includes(word))) return true;
  if (SECRET_ENDINGS.some((ending) => squashed.endsWith(ending))) return true;
  return SECRET_LAST_WORDS.has(words[words.length - 1] as string);
}

/**
 * True when an argument named `key` holds a secret and must not be recorded: a secret name (see
 * {@link isSecretName}), or a name with the Wanaku contract's credential prefix `wanaku_auth_`, in any protocol.
 */
export function isSecretArgumentKey(key: string): boolean {
  return isSecretName(key) || key.startsWith(CREDENTIAL_ARGUMENT_PREFIX);
}

/** True when a header named `key` holds a credential and must not be recorded (see {@link isSecretName}). */
export function isSecretHeaderKey(key: string): boolean {
  return isSecretName(key);
}

/**
 * Arguments as they may be recorded in an event or a log, whatever the protocol that carries them: arguments whose
 * name holds a secret (see {@link isSecretArgumentKey}) replaced with `[REDACTED]`; an object argument as JSON with
 * its own secret-named fields redacted, at any depth; a URL's password redacted; other values turned into strings;
 * `null` values dropped.
 */
export function redactArguments(args: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === null || value === undefined) continue;
    out[key] = isSecretArgumentKey(key)
      ? REDACTED
      : typeof value === "string"
        ? redactUrlCredentials(value)
        : stringifyArgument(typeof value === "object" ? redactJson(value, []) : value);
  }
  return out;
}

/**
 * The secret values among a call's arguments, by the name rules alone and whatever the protocol: the value of
 * every argument whose name holds a secret (see {@link isSecretArgumentKey}; every string of it when it is an
 * object), of every secret-named field inside an object argument at any depth, and every URL password. The router
 * scrubs them from whatever comes back (a result, an error message, an event), since a backend may echo what it
 * received.
 *
 * @throws TrestleError `InvalidArgument` when a secret-named argument cannot be turned into text (a bigint inside
 * an object).
 *
 * @example
 * ```ts
 * argumentSecretValues({ api_key: "k3y", db: { password: "s3" }, url: "postgres://u:pw@db/x" }); // ["k3y", "s3", "pw"]
 * ```
 */
export function argumentSecretValues(args: Readonly<Record<string, unknown>>): string[] {
  const found: string[] = [];
  // `for…in` with an own-property check walks what `Object.entries` would without making its pairs (every call).
  for (const name in args) {
    if (!Object.hasOwn(args, name)) continue;
    const value = args[name];
    if (value === null || value === undefined) continue;
    if (isSecretArgumentKey(name)) found.push(secretText(name, value));
    else if (typeof value === "object") redactJson(value, found);
    else if (typeof value === "string") redactUrlCredentials(value, found);
  }
  return found;
}

/** A secret argument's value as the text it is sent and echoed as. */
function secretText(name: string, value: unknown): string {
  try {
    return stringifyArgument(value);
  } catch (error) {
    throw new TrestleError(
      `Argument '${name}' cannot be sent as text: ${error instanceof Error ? error.message : String(error)}`,
      Code.InvalidArgument,
    );
  }
}

/**
 * A JSON value with every secret-named field (see {@link isSecretName}), at any depth, replaced by `[REDACTED]`;
 * the strings taken out are appended to `found` when given, so a caller can scrub them from other text too.
 * Values without such a field come back equal (a copy for objects and arrays).
 *
 * @example
 * ```ts
 * redactValue({ db: { url: "x", password: "s3" } }); // { db: { url: "x", password: "[REDACTED]" } }
 * ```
 */
export function redactValue(value: unknown, found: string[] = []): unknown {
  return redactJson(value, found);
}

/** Headers as they may be recorded: credential names (see {@link isSecretName}) have their value redacted. */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) out[key] = isSecretName(key) ? REDACTED : value;
  return out;
}

/** A body with its secret-named fields redacted, and the values it redacted. */
export interface RedactedBody {
  /** The body as it may be recorded. */
  text: string;
  /** The values taken out, so that a caller can scrub them from anything else too (a reply that echoes them). */
  secretValues: string[];
}

/** `scheme://user:password@` in a URL: the password is a credential whatever the field is called. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s/@]+)@/gi;

/**
 * `text` with the password of every URL in it that carries one (`postgres://app:s3cret@db/x`) replaced by
 * `[REDACTED]`; the passwords taken out are appended to `found` when given.
 *
 * @example
 * ```ts
 * redactUrlCredentials("postgres://app:s3cret@db:5432/shop"); // "postgres://app:[REDACTED]@db:5432/shop"
 * ```
 */
export function redactUrlCredentials(text: string, found?: string[]): string {
  // Most strings hold no URL: one search, no regular expression.
  if (!text.includes("://")) return text;
  return text.replace(URL_CREDENTIALS, (_match, head: string, password: string) => {
    found?.push(password);
    return `${head}${REDACTED}@`;
  });
}

function redactJson(value: unknown, found: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => redactJson(item, found));
  if (typeof value === "string") return redactUrlCredentials(value, found);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (isSecretName(key) && item !== null && item !== undefined) {
      // A secret may be an object itself (`credentials: {user, password}`): every string in it is secret.
      collectStrings(item, found);
      out[key] = REDACTED;
    } else out[key] = redactJson(item, found);
  }
  return out;
}

function collectStrings(value: unknown, found: string[]): void {
  if (typeof value === "string") found.push(value);
  else if (typeof value === "number" || typeof value === "boolean") found.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, found);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) collectStrings(item, found);
}

function decodeFormPart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

/** A form field: `key=value`. */
const formField = /^([^=]+)(=)(.*)$/s;
/**
 * A `key=value` or `key: value` line. The key is matched inside a lookahead, which JavaScript never backtracks
 * into: a line that is one long word (a base64 blob, a minified payload) fails once at its end rather than once
 * per shorter key. Only the longest run can be a key anyway: a shorter one is followed by another key character,
 * not by `=` or `:`. The value takes the rest of the line, its `\r` split off below.
 */
const keyValueLine = /^(?=(\s*[^=:\s]+))\1(\s*[=:]\s*)(.*)$/s;

/** `key=value` (form fields, `&`-separated) or `key=value` / `key: value` lines, with secret values redacted. */
function redactPairs(body: string, found: string[]): string {
  // No pair without one of them: a long text (a tool's 16 KiB result) is not split and matched line by line.
  const equals = body.includes("=");
  if (!equals && !body.includes(":")) return body;
  const form = equals && !/[\r\n]/.test(body);
  const separator = form ? "&" : "\n";
  return body
    .split(separator)
    .map((part) => {
      const pair = (form ? formField : keyValueLine).exec(part);
      if (!pair) return part;
      const [, key = "", between = ""] = pair;
      let value = pair[3] ?? "";
      let end = "";
      if (!form && value.endsWith("\r")) {
        value = value.slice(0, -1);
        end = "\r";
      }
      const name = form ? decodeFormPart(key) : key.trim();
      if (!isSecretName(name) || value === "") return part;
      found.push(value);
      if (form) found.push(decodeFormPart(value));
      return `${key}${between}${REDACTED}${end}`;
    })
    .join(separator);
}

/**
 * A request body as it may be recorded: the body is scrubbed the way arguments are. A JSON body keeps its
 * shape with every secret-named field's value (at any depth) replaced by `[REDACTED]`; a form body
 * (`a=1&password=x`) or a `key=value` / `key: value` text has the values of secret-named keys replaced. Any
 * other text is returned as it is (the call's known secret values are still scrubbed from it by the caller).
 *
 * @example
 * ```ts
 * redactBody('{"user":"al","client_secret":"s3"}').text; // '{"user":"al","client_secret":"[REDACTED]"}'
 * ```
 */
export function redactBody(body: string): RedactedBody {
  const secretValues: string[] = [];
  if (body.trim() === "") return { text: body, secretValues };
  const trimmed = body.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      const redacted = redactJson(parsed, secretValues);
      return { text: secretValues.length === 0 ? body : JSON.stringify(redacted), secretValues };
    } catch {
      // Not JSON after all: treat it as text below.
    }
  }
  const text = redactPairs(body, secretValues);
  return { text, secretValues };
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

/**
 * A tool-call event with the name-based redaction applied once more: secret-named arguments and headers
 * replaced, the body redacted as {@link redactBody} does, a set `secretsURI` hidden. Events are redacted where
 * they are made; this is for the places that write an event somewhere else (a debug log), so that a producer
 * that forgot a field cannot put a secret there. Idempotent; an event without a STARTED payload is returned
 * as it is.
 */
export function redactToolCallEvent(event: ToolCallEvent): ToolCallEvent {
  if (event.type !== "started") return event;
  const copy: ToolCallStartedEvent = {
    ...event,
    arguments: Object.fromEntries(
      Object.entries(event.arguments).map(([key, value]) => [
        key,
        isSecretArgumentKey(key) ? REDACTED : value,
      ]),
    ),
    headers: redactHeaders(event.headers),
  };
  if (event.body !== undefined) copy.body = redactBody(event.body).text;
  if (event.secretsURI !== undefined) copy.secretsURI = redactSecretsUri(event.secretsURI);
  return copy;
}
