/** How a principal proved who it is: a configured static token, or an OAuth access token. */
export type PrincipalKind = "token" | "oauth";

/**
 * Who made a request, after its bearer token was checked. Plain, frozen data: safe to log and to serialise.
 *
 * The bearer token itself is not a field of this object (not enumerable, not in `JSON.stringify`, not copied
 * by a spread or `structuredClone`); {@link principalBearer} reads it where it is needed, as the
 * `subject_token` of a token exchange.
 */
export interface Principal {
  /** `"token"` for a configured static token, `"oauth"` for an access token from an issuer. */
  readonly kind: PrincipalKind;
  /**
   * A stable identity that is unique across kinds and issuers: `token:<name>` for a static token,
   * `<issuer>#<principal claim>` for OAuth. Bind ownership (sessions, registrations, tasks) to this, not to
   * `name`: an OAuth subject named like a static token must not inherit what the token owns.
   */
  readonly id: string;
  /** A name for logs, events and policies: the static token's name, or the principal claim (`sub`). */
  readonly name: string;
  /** The router scopes granted (`mcp`, `admin`, `register`, …); `admin` implies every scope. */
  readonly scopes: readonly string[];
  /** The scope values of the OAuth token as issued (empty for a static token). */
  readonly tokenScopes: readonly string[];
  /** Groups from the groups claim (or the static token's `groups`). */
  readonly groups: readonly string[];
  /** The token's claims (JWT payload or introspection answer); empty for a static token. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** Namespaces this principal may use over MCP; all when absent. */
  readonly namespaces?: readonly string[];
  /** The issuer that vouched for the token (OAuth only). */
  readonly issuer?: string;
  /** When the token stops being valid, in seconds since the epoch (OAuth only, when the token says). */
  readonly expiresAt?: number;
}

/** The fields of a {@link Principal}, given to {@link createPrincipal}. */
export interface PrincipalInit {
  kind: PrincipalKind;
  id: string;
  name: string;
  scopes: readonly string[];
  tokenScopes?: readonly string[];
  groups?: readonly string[];
  claims?: Readonly<Record<string, unknown>>;
  namespaces?: readonly string[];
  issuer?: string;
  expiresAt?: number;
}

// A symbol no one outside this module holds: the bearer rides on the principal without being a visible field.
const BEARER = Symbol("trestle.principal.bearer");

/**
 * Makes a frozen {@link Principal}. When `bearer` is given it is attached out of sight (a non-enumerable
 * property under a private symbol), readable only through {@link principalBearer}.
 *
 * @example
 * const principal = createPrincipal({ kind: "token", id: "token:ops", name: "ops", scopes: ["admin"] });
 */
export function createPrincipal(init: PrincipalInit, bearer?: string): Principal {
  const principal: Principal = {
    kind: init.kind,
    id: init.id,
    name: init.name,
    scopes: Object.freeze([...init.scopes]),
    tokenScopes: Object.freeze([...(init.tokenScopes ?? [])]),
    groups: Object.freeze([...(init.groups ?? [])]),
    claims: deepFreeze({ ...(init.claims ?? {}) }),
    ...(init.namespaces ? { namespaces: Object.freeze([...init.namespaces]) } : {}),
    ...(init.issuer !== undefined ? { issuer: init.issuer } : {}),
    ...(init.expiresAt !== undefined ? { expiresAt: init.expiresAt } : {}),
  };
  if (bearer !== undefined) {
    Object.defineProperty(principal, BEARER, { value: bearer, enumerable: false, writable: false });
  }
  return Object.freeze(principal);
}

/**
 * The bearer token `principal` was authenticated with, for a token exchange's `subject_token`; `undefined`
 * for a static-token principal (a static token is never sent anywhere) or a principal made without one.
 */
export function principalBearer(principal: Principal): string | undefined {
  const value = (principal as unknown as Record<symbol, unknown>)[BEARER];
  return typeof value === "string" ? value : undefined;
}

/** True when `principal` holds `scope`, or `admin`, which implies every scope. */
export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.includes(scope) || principal.scopes.includes("admin");
}

/** The scopes of `required` that `principal` lacks (none when it holds `admin`). */
export function missingScopes(principal: Principal, required: readonly string[]): string[] {
  return required.filter((scope) => !hasScope(principal, scope));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}
