import { configurationError } from "./errors.js";

/** The `error` codes of a Bearer challenge (RFC 6750 §3.1). */
export type BearerErrorCode = "invalid_request" | "invalid_token" | "insufficient_scope";

/** What goes into a Bearer `WWW-Authenticate` challenge. */
export interface BearerChallengeParams {
  /** The URL of the endpoint's protected-resource metadata (RFC 9728 §5.1); absent when there is none. */
  resourceMetadata?: string;
  /** The scopes the operation needs, all of them (one challenge names every scope: MCP, RFC 6750 §3.1). */
  scopes?: readonly string[];
  /** The error code; absent when the request simply had no token (RFC 6750 §3.1). */
  error?: BearerErrorCode;
  /** A sentence for the developer; characters a quoted string may not carry are replaced. */
  errorDescription?: string;
}

// RFC 6749 §3.3 scope-token: %x21 / %x23-5B / %x5D-7E (printable ASCII without space, `"` and `\`).
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** True when `scope` is a valid OAuth scope token (RFC 6749 §3.3). */
export function isScopeToken(scope: string): boolean {
  return SCOPE_TOKEN.test(scope);
}

/**
 * A Bearer `WWW-Authenticate` value (RFC 6750 §3, RFC 9728 §5.1): every parameter a quoted string, with
 * `\` and `"` escaped and no control characters, so nothing a caller passes can break out of the header.
 *
 * @throws {AuthError} `configuration` when a scope is not a valid scope token.
 * @example
 * bearerChallenge({ resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scopes: ["mcp"] });
 * // 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"'
 */
export function bearerChallenge(params: BearerChallengeParams): string {
  const scopes = params.scopes ?? [];
  for (const scope of scopes) {
    if (!isScopeToken(scope)) throw configurationError(`"${scope}" is not a valid OAuth scope value`);
  }
  const scope = [...new Set(scopes)].join(" ");
  const parts: string[] = [];
  if (params.error !== undefined) {
    parts.push(`error=${quote(params.error)}`);
    if (scope !== "") parts.push(`scope=${quote(scope)}`);
    if (params.resourceMetadata !== undefined)
      parts.push(`resource_metadata=${quote(params.resourceMetadata)}`);
    if (params.errorDescription !== undefined) {
      parts.push(`error_description=${quote(descriptionText(params.errorDescription))}`);
    }
  } else {
    if (params.resourceMetadata !== undefined)
      parts.push(`resource_metadata=${quote(params.resourceMetadata)}`);
    if (scope !== "") parts.push(`scope=${quote(scope)}`);
  }
  return parts.length === 0 ? "Bearer" : `Bearer ${parts.join(", ")}`;
}

/**
 * The challenge of a 401: no token (no `error`), or a token that is not valid (`error="invalid_token"`).
 * Carries `resource_metadata` and the `scope` the operation needs.
 */
export function unauthorizedChallenge(
  resourceMetadata: string | undefined,
  scopes: readonly string[],
  errorDescription?: string,
): string {
  return bearerChallenge({
    ...(resourceMetadata !== undefined ? { resourceMetadata } : {}),
    scopes,
    ...(errorDescription !== undefined ? { error: "invalid_token" as const, errorDescription } : {}),
  });
}

/**
 * The challenge of a 403 for a token that lacks scopes: `error="insufficient_scope"` and, in one challenge,
 * every scope the operation needs (not only the missing ones), as MCP 2026-07-28 asks.
 */
export function insufficientScopeChallenge(
  resourceMetadata: string | undefined,
  scopes: readonly string[],
  errorDescription?: string,
): string {
  return bearerChallenge({
    ...(resourceMetadata !== undefined ? { resourceMetadata } : {}),
    scopes,
    error: "insufficient_scope",
    ...(errorDescription !== undefined ? { errorDescription } : {}),
  });
}

/** A quoted-string (RFC 9110 §5.6.4): `\` and `"` escaped; control characters and non-ASCII become spaces. */
function quote(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  const safe = value.replace(/[\x00-\x1F\x7F-\uFFFF]/g, " ");
  return `"${safe.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

// RFC 6750 §3: error_description is %x20-21 / %x23-5B / %x5D-7E (no `"` and no `\` even escaped).
function descriptionText(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, "/")
    .replace(/[^\x20-\x7E]/g, " ")
    .slice(0, 300);
}
