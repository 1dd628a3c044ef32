import { Code, type ToolReference, TrestleError } from "@trestle/core";
import {
  isSecretArgumentKey,
  isSecretHeaderKey,
  redactBody,
  redactUrlCredentials,
  redactValue,
  stringifyArgument,
} from "@trestle/core/redaction";

/** Prefix of arguments that become headers (`wanaku_meta_X` → header `X`). */
export const META_ARGUMENT_PREFIX = "wanaku_meta_";

/** Prefix of arguments that carry credentials as headers (`wanaku_auth_X` → header `X`). */
export const AUTH_ARGUMENT_PREFIX = "wanaku_auth_";

/** The argument that carries a request body, where the tool's input schema declares it. */
export const BODY_ARGUMENT = "wanaku_body";

/**
 * What a tool call's arguments mean once Wanaku's argument conventions are applied: the ordinary arguments as
 * text, the headers, the body, and the secret values among them. The Wanaku transports send these parts, and
 * describe them to the router (see `describeWanakuToolCall`): it records them redacted and scrubs the secret
 * values from everything that comes back.
 */
export interface ToolCallParts {
  /** Every argument except `wanaku_meta_*` and `wanaku_auth_*`, nulls dropped, values as text. */
  arguments: Record<string, string>;
  /** Headers, later wins: `wanaku_meta_X` → `X`; service-scoped header properties; `wanaku_auth_X` → `X`. */
  headers: Record<string, string>;
  /** The `wanaku_body` argument as text, where the input schema declares it; else "". */
  body: string;
  /** Headers filled from `wanaku_auth_*` arguments: always redacted in events, whatever their name. */
  authHeaders: Set<string>;
  /** Secret values the call carries: auth values, secret-named arguments, credential headers, body secrets. */
  secretValues: string[];
}

function isPresent(value: unknown): boolean {
  return value !== null && value !== undefined;
}

function toText(name: string, value: unknown): string {
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
 * Splits a tool call's arguments into the parts contract §4 prescribes:
 * - `arguments`: every argument except `wanaku_meta_*` and `wanaku_auth_*`, nulls dropped, values as text;
 * - `headers`, later wins: `wanaku_meta_X` → `X`; each `target: "header"`, `scope: "service"` property →
 *   a header of its name, valued by the argument of that name or else the property's default `value`;
 *   `wanaku_auth_X` → `X`;
 * - `body`: the `wanaku_body` argument, only where the input schema declares `wanaku_body`.
 *
 * It does not validate required arguments: see `validateRequiredArguments` in `@trestle/core/catalog`.
 *
 * @throws TrestleError `InvalidArgument` when an argument value cannot be turned into text (a cycle, a bigint
 * inside an object).
 */
export function toolCallParts(args: Readonly<Record<string, unknown>>, tool: ToolReference): ToolCallParts {
  const secretValues: string[] = [];
  const authHeaders = new Set<string>();
  const properties = tool.inputSchema?.properties ?? {};

  const argumentsOut: Record<string, string> = {};
  const metaHeaders: Record<string, string> = {};
  const authValues: Record<string, string> = {};
  // `for…in` with an own-property check walks what `Object.entries` would without making its pairs (every call).
  for (const name in args) {
    if (!Object.hasOwn(args, name)) continue;
    const value = args[name];
    if (!isPresent(value)) continue;
    const text = toText(name, value);
    if (isSecretArgumentKey(name)) secretValues.push(text);
    // Secret-named fields inside an object argument (`{db: {password}}`), and a URL's password, are as secret as
    // arguments of that name.
    else if (typeof value === "object") redactValue(value, secretValues);
    else if (typeof value === "string") redactUrlCredentials(value, secretValues);
    if (name.startsWith(META_ARGUMENT_PREFIX)) {
      const header = name.slice(META_ARGUMENT_PREFIX.length);
      if (header) metaHeaders[header] = text;
    } else if (name.startsWith(AUTH_ARGUMENT_PREFIX)) {
      const header = name.slice(AUTH_ARGUMENT_PREFIX.length);
      if (header) authValues[header] = text;
    } else {
      argumentsOut[name] = text;
    }
  }

  const propertyHeaders: Record<string, string> = {};
  for (const name in properties) {
    const property = properties[name];
    if (!Object.hasOwn(properties, name) || property === undefined) continue;
    if (property.target !== "header" || property.scope !== "service") continue;
    const fromArgument = args[name];
    const value = isPresent(fromArgument) ? toText(name, fromArgument) : property.value;
    if (value === undefined || value === null) continue;
    propertyHeaders[name] = String(value);
    if (isSecretArgumentKey(name)) secretValues.push(String(value));
  }

  const headers: Record<string, string> = { ...metaHeaders, ...propertyHeaders, ...authValues };
  for (const header of Object.keys(authValues)) authHeaders.add(header);
  for (const name in headers) {
    if (isSecretHeaderKey(name) || authHeaders.has(name)) secretValues.push(headers[name] as string);
  }

  const bodyValue = Object.hasOwn(properties, BODY_ARGUMENT) ? args[BODY_ARGUMENT] : undefined;
  const body = isPresent(bodyValue) ? toText(BODY_ARGUMENT, bodyValue) : "";
  // A secret-named field inside the body (`{"client_secret": …}`) is as secret as an argument of that name.
  secretValues.push(...redactBody(body).secretValues);
  return { arguments: argumentsOut, headers, body, authHeaders, secretValues };
}
