import { isScopeToken } from "./challenge.js";
import { configurationError } from "./errors.js";

/** The router's own scopes; without a scope map, an OAuth scope value of the same name grants each. */
export const ROUTER_SCOPES: readonly string[] = Object.freeze(["mcp", "admin", "register"]);

/** Options of {@link createScopeMapping}. */
export interface ScopeMappingOptions {
  /** The router's scopes; default {@link ROUTER_SCOPES}. */
  routerScopes?: readonly string[];
  /**
   * OAuth scope value → the router scopes it grants (`{ "trestle:use": ["mcp"] }`). When given, it replaces
   * the default (each router scope granted by the value of the same name) entirely: only the values listed
   * grant anything, so an IdP's generic `admin` scope grants nothing here unless mapped (`{ admin: ["admin"] }`).
   */
  scopeMap?: Readonly<Record<string, readonly string[]>>;
}

/** Translates between OAuth scope values and router scopes, both ways. */
export interface ScopeMapping {
  /** The router scopes granted by the OAuth scope values of a token. */
  grant(tokenScopes: readonly string[]): string[];
  /**
   * The OAuth scope values a client should ask for to get `routerScopes`: for each, the narrowest value that
   * grants it (the one granting the fewest router scopes), or the router scope's own name when nothing maps to it.
   */
  oauthScopesFor(routerScopes: readonly string[]): string[];
}

/**
 * Makes the mapping between OAuth scope values and router scopes.
 *
 * @throws {AuthError} `configuration` when a map key is not a scope token or grants an unknown router scope.
 * @example
 * const mapping = createScopeMapping({ scopeMap: { "trestle:use": ["mcp"] } });
 * mapping.grant(["trestle:use", "mcp"]); // ["mcp"] (the map replaces the default: "mcp" alone grants nothing)
 * mapping.oauthScopesFor(["mcp"]);         // ["trestle:use"]
 */
export function createScopeMapping(options: ScopeMappingOptions = {}): ScopeMapping {
  const routerScopes = options.routerScopes ?? ROUTER_SCOPES;
  const grants = new Map<string, readonly string[]>();
  if (options.scopeMap === undefined) for (const scope of routerScopes) grants.set(scope, [scope]);
  for (const [value, granted] of Object.entries(options.scopeMap ?? {})) {
    if (!isScopeToken(value))
      throw configurationError(`The scope map key "${value}" is not a valid OAuth scope value`);
    for (const scope of granted) {
      if (!routerScopes.includes(scope)) {
        throw configurationError(
          `The scope map grants "${scope}" for "${value}", which is not a router scope (${routerScopes.join(", ")})`,
        );
      }
    }
    grants.set(value, [...granted]);
  }

  return {
    grant(tokenScopes) {
      const granted = new Set<string>();
      for (const value of tokenScopes) for (const scope of grants.get(value) ?? []) granted.add(scope);
      return [...granted];
    },
    oauthScopesFor(wanted) {
      const result = new Set<string>();
      for (const scope of wanted) {
        let best: string | undefined;
        let bestBreadth = Number.POSITIVE_INFINITY;
        for (const [value, granted] of grants) {
          if (granted.includes(scope) && granted.length < bestBreadth) {
            best = value;
            bestBreadth = granted.length;
          }
        }
        result.add(best ?? scope);
      }
      return [...result];
    },
  };
}
