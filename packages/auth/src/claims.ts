/** Which claims name the principal, its groups and its scopes. */
export interface ClaimNames {
  /**
   * The claim whose value is the principal's name; default `sub`, or `client_id` when a token has no `sub`
   * (a client acting on its own behalf, as introspection answers for client-credentials tokens often say).
   */
  principal?: string;
  /**
   * The claim holding the groups; default `groups`. A name with dots that is not itself a claim is read as a
   * path into nested claims (`realm_access.roles` for Keycloak); a claim named with dots
   * (`https://example.com/groups`) is found first as it is.
   */
  groups?: string;
  /** The claim holding the scopes; default `scope` (space-separated), then `scp` (array or string). */
  scopes?: string;
}

/**
 * The value of claim `name`: the claim itself when present, else, for a dotted name, the value at that path
 * through nested objects.
 */
export function readClaim(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  if (!name.includes(".")) return undefined;
  let current: unknown = claims;
  for (const part of name.split(".")) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * The strings in a claim value: an array's string members, or a string split on spaces (how `scope` is
 * written, RFC 8693 §4.2); anything else gives none.
 */
export function claimStrings(value: unknown): string[] {
  if (typeof value === "string") return value.split(" ").filter((part) => part !== "");
  if (Array.isArray(value))
    return value.filter((item): item is string => typeof item === "string" && item !== "");
  return [];
}

/** The scope values a token carries: the configured claim, or `scope`, else `scp` (RFC 9068 §2.2.3). */
export function tokenScopesOf(claims: Readonly<Record<string, unknown>>, scopesClaim?: string): string[] {
  if (scopesClaim !== undefined) return claimStrings(readClaim(claims, scopesClaim));
  const scope = claims.scope;
  if (scope !== undefined) return claimStrings(scope);
  return claimStrings(claims.scp);
}
