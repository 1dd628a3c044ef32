import { isScopeToken } from "./challenge.js";
import { configurationError } from "./errors.js";
import { canonicalResourceUri } from "./resource-uri.js";

/** An RFC 9728 protected-resource metadata document, as Trestle serves it. */
export interface ProtectedResourceMetadata {
  /** The resource's canonical URI; a client checks it equals the URI it asked about. */
  resource: string;
  /** The issuers whose tokens this resource accepts (at least one, MCP 2026-07-28). */
  authorization_servers: string[];
  /** The scopes a client should ask for to use the resource (never `offline_access`). */
  scopes_supported?: string[];
  /** Only the `Authorization` header carries tokens: never the query string or the body. */
  bearer_methods_supported: ["header"];
  /** A human-readable name of the resource. */
  resource_name?: string;
  /** Where a developer reads about the resource. */
  resource_documentation?: string;
}

/** Input of {@link buildProtectedResourceMetadata}. */
export interface ProtectedResourceMetadataInit {
  /** The resource URI (canonicalised). */
  resource: string;
  /** Issuer identifiers, in order of preference. */
  authorizationServers: readonly string[];
  /** Scopes the resource needs; `offline_access` is dropped (refresh tokens are no resource requirement). */
  scopesSupported?: readonly string[];
  resourceName?: string;
  resourceDocumentation?: string;
}

/**
 * Builds the RFC 9728 document for one resource: canonical `resource`, `authorization_servers`,
 * `scopes_supported` without `offline_access`, `bearer_methods_supported: ["header"]`.
 *
 * @throws {AuthError} `configuration` when there is no authorization server, the resource URI is not usable, or
 *   a scope is not a valid scope token.
 * @example
 * buildProtectedResourceMetadata({
 *   resource: "https://mcp.example.com/mcp",
 *   authorizationServers: ["https://idp.example.com"],
 *   scopesSupported: ["mcp"],
 * });
 */
export function buildProtectedResourceMetadata(
  init: ProtectedResourceMetadataInit,
): ProtectedResourceMetadata {
  if (init.authorizationServers.length === 0) {
    throw configurationError("Protected-resource metadata needs at least one authorization server");
  }
  const scopes = [...new Set(init.scopesSupported ?? [])].filter((scope) => scope !== "offline_access");
  for (const scope of scopes) {
    if (!isScopeToken(scope)) throw configurationError(`"${scope}" is not a valid OAuth scope value`);
  }
  return {
    resource: canonicalResourceUri(init.resource),
    authorization_servers: [...new Set(init.authorizationServers)],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ["header"],
    ...(init.resourceName !== undefined ? { resource_name: init.resourceName } : {}),
    ...(init.resourceDocumentation !== undefined
      ? { resource_documentation: init.resourceDocumentation }
      : {}),
  };
}
