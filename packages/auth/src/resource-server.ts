import { insufficientScopeChallenge, unauthorizedChallenge } from "./challenge.js";
import { AuthError } from "./errors.js";
import type { OAuthVerifier } from "./oauth-verifier.js";
import { missingScopes, type Principal } from "./principal.js";
import { buildProtectedResourceMetadata, type ProtectedResourceMetadata } from "./resource-metadata.js";
import {
  canonicalResourceUri,
  endpointResourceUri,
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadataUrl,
} from "./resource-uri.js";
import { createStaticTokenVerifier, type StaticTokenConfig } from "./static-tokens.js";

/** Options of {@link createResourceServer}. */
export interface ResourceServerOptions {
  /** The router's canonical external URL (`https://mcp.example.com`, or with a path prefix). */
  publicUrl: string;
  /** Static tokens, accepted beside OAuth (the principal is the token's name). */
  tokens?: readonly StaticTokenConfig[];
  /** The OAuth verifier (from {@link createOAuthVerifier}); without it only static tokens are accepted. */
  oauth?: OAuthVerifier;
  /** `resource_name` of the metadata documents; default "Trestle". */
  resourceName?: string;
  /** `resource_documentation` of the metadata documents. */
  resourceDocumentation?: string;
}

/** What an endpoint asks of the requests it serves. */
export interface EndpointOptions {
  /**
   * The router scopes a request to this endpoint needs (all of them): `["mcp"]` for an MCP endpoint. They
   * are named in 401 challenges and, as OAuth scope values, in `scopes_supported`.
   */
  scopes: readonly string[];
}

/** One protected endpoint (the MCP endpoint, a namespace's, the A2A endpoint, the management API). */
export interface ProtectedEndpoint {
  /** The path under `publicUrl` (`/mcp`, `/team-a/mcp`; `""` for the root). */
  readonly path: string;
  /** Its canonical resource URI (`https://mcp.example.com/mcp`). */
  readonly resource: string;
  /**
   * The audiences a token may name to be accepted here: the endpoint's URI and the router's root URI
   * (`publicUrl`), which names the router as a whole. An issuer's own `audiences` replace these.
   */
  readonly audiences: readonly string[];
  /** The router scopes a request needs. */
  readonly scopes: readonly string[];
  /** The URL of its RFC 9728 metadata (the path-inserted form); absent without OAuth. */
  readonly metadataUrl: string | undefined;
  /** The RFC 9728 document to serve at `metadataUrl`; absent without OAuth. */
  readonly metadata: ProtectedResourceMetadata | undefined;
}

/** The router as an OAuth 2.1 resource server: authenticates requests, checks scopes, describes itself. */
export interface ResourceServer {
  /**
   * Describes the endpoint at `path`. Pure and cheap; call it per request or keep the result.
   *
   * @throws {AuthError} `configuration` when `path` does not start with `/` (or is not `""`).
   */
  endpoint(path: string, options: EndpointOptions): ProtectedEndpoint;
  /**
   * When `requestPath` (as the router receives it) asks for protected-resource metadata, the path of the
   * endpoint it describes (`/.well-known/oauth-protected-resource/team-a/mcp` → `/team-a/mcp`; the bare
   * well-known path → `""`); otherwise `undefined`. Both the form under `publicUrl`'s path prefix and the
   * form without it are recognised, so a proxy may strip the prefix or not.
   */
  metadataEndpointPath(requestPath: string): string | undefined;
  /**
   * Checks the `Authorization` header of a request to `endpoint` and returns who made it: a static token
   * first, then an OAuth access token. Only the header carries a token (never the query string).
   *
   * @param operationScopes what the operation needs, named in the challenge (default: the endpoint's scopes).
   * @throws {AuthError} `missing_token` / `invalid_token` (401, with `challenge` set: `resource_metadata`
   *   and `scope`, plus `error="invalid_token"` and a description for a bad token); `unavailable` (503,
   *   no challenge) when the issuer could not be asked.
   */
  authenticate(
    authorization: string | undefined,
    endpoint: ProtectedEndpoint,
    operationScopes?: readonly string[],
  ): Promise<Principal>;
  /**
   * Checks that `principal` holds every scope in `required` (`admin` implies all).
   *
   * @throws {AuthError} `insufficient_scope` (403) whose challenge names, in one `scope` parameter, every
   *   scope the operation needs as OAuth scope values.
   */
  authorize(principal: Principal, endpoint: ProtectedEndpoint, required?: readonly string[]): void;
  /** The 401 challenge for `endpoint` when a request has no usable token (for callers that refuse on their own). */
  challenge(endpoint: ProtectedEndpoint, operationScopes?: readonly string[]): string;
}

/** `value` frozen to its leaves (a metadata document is plain JSON). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Endpoint descriptions a resource server keeps (the oldest leaves first). */
const MAX_DESCRIBED_ENDPOINTS = 256;

// RFC 6750's token68, widened to any visible ASCII so that static tokens of any alphabet keep working.
const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

/**
 * Makes the resource server for a router at `publicUrl`.
 *
 * @throws {AuthError} `configuration` on an unusable `publicUrl` or static token list.
 * @example
 * const server = createResourceServer({
 *   publicUrl: "https://mcp.example.com",
 *   tokens: [{ name: "ops", token: process.env.OPS_TOKEN!, scopes: ["admin"] }],
 *   oauth: createOAuthVerifier({ issuers: [{ issuer: "https://idp.example.com" }] }),
 * });
 * const mcp = server.endpoint("/mcp", { scopes: ["mcp"] });
 * const principal = await server.authenticate(req.headers.authorization, mcp);
 * server.authorize(principal, mcp);
 */
export function createResourceServer(options: ResourceServerOptions): ResourceServer {
  const root = canonicalResourceUri(options.publicUrl);
  const prefix = new URL(root).pathname.replace(/\/+$/, "");
  const staticTokens = createStaticTokenVerifier(options.tokens ?? []);
  const oauth = options.oauth;
  const oauthScopes = (scopes: readonly string[]) =>
    oauth ? oauth.scopeMapping.oauthScopesFor(scopes) : [...scopes];

  // Requests describe their endpoint on every call: each description is made once (URL parsing and the metadata
  // document are not free), and kept in a bounded map, as a path may come from a request.
  const described = new Map<string, ProtectedEndpoint>();
  function endpoint(path: string, endpointOptions: EndpointOptions): ProtectedEndpoint {
    const key = `${path}\n${endpointOptions.scopes.join(" ")}`;
    const known = described.get(key);
    if (known !== undefined) return known;
    const made = describeEndpoint(path, endpointOptions);
    if (described.size >= MAX_DESCRIBED_ENDPOINTS) described.delete(described.keys().next().value as string);
    described.set(key, made);
    return made;
  }

  function describeEndpoint(path: string, endpointOptions: EndpointOptions): ProtectedEndpoint {
    const normalized = path === "/" ? "" : path.replace(/\/+$/, "");
    const resource = endpointResourceUri(root, normalized);
    const scopes = Object.freeze([...endpointOptions.scopes]);
    const metadataUrl = oauth ? protectedResourceMetadataUrl(resource) : undefined;
    // Frozen: the description is shared by every request to the endpoint.
    const metadata = oauth
      ? deepFreeze(
          buildProtectedResourceMetadata({
            resource,
            authorizationServers: oauth.issuers,
            scopesSupported: oauthScopes(scopes),
            resourceName: options.resourceName ?? "Trestle",
            ...(options.resourceDocumentation !== undefined
              ? { resourceDocumentation: options.resourceDocumentation }
              : {}),
          }),
        )
      : undefined;
    return Object.freeze({
      path: normalized,
      resource,
      audiences: Object.freeze(resource === root ? [root] : [resource, root]),
      scopes,
      metadataUrl,
      metadata,
    });
  }

  function challenge(target: ProtectedEndpoint, scopes: readonly string[], description?: string): string {
    return unauthorizedChallenge(target.metadataUrl, oauthScopes(scopes), description);
  }

  return {
    endpoint,

    metadataEndpointPath(requestPath) {
      const path = requestPath.replace(/\/+$/, "");
      if (path !== PROTECTED_RESOURCE_WELL_KNOWN && !path.startsWith(`${PROTECTED_RESOURCE_WELL_KNOWN}/`)) {
        return undefined;
      }
      const rest = path.slice(PROTECTED_RESOURCE_WELL_KNOWN.length);
      // The well-known path of the root resource under a prefix is /.well-known/…/prefix: strip it when present.
      if (prefix !== "" && (rest === prefix || rest.startsWith(`${prefix}/`)))
        return rest.slice(prefix.length);
      return rest;
    },

    async authenticate(authorization, target, operationScopes = target.scopes) {
      if (authorization === undefined || authorization.trim() === "") {
        throw new AuthError("missing_token", "A bearer token is required", {
          challenge: challenge(target, operationScopes),
        });
      }
      const match = BEARER.exec(authorization.trim());
      if (!match) {
        throw new AuthError("missing_token", 'The Authorization header must be "Bearer <token>"', {
          challenge: challenge(target, operationScopes),
        });
      }
      const token = match[1] as string;
      const known = staticTokens.verify(token);
      if (known !== undefined) return known;
      if (oauth === undefined) {
        throw new AuthError("invalid_token", "The bearer token is not valid", {
          challenge: challenge(target, operationScopes, "The bearer token is not valid"),
        });
      }
      try {
        return await oauth.verify(token, target.audiences);
      } catch (error) {
        if (AuthError.is(error) && error.status === 401) {
          throw error.withChallenge(challenge(target, operationScopes, error.message));
        }
        throw error;
      }
    },

    authorize(principal, target, required = target.scopes) {
      const missing = missingScopes(principal, required);
      if (missing.length === 0) return;
      const message = `The token of "${principal.name}" does not grant the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")} needed here`;
      throw new AuthError("insufficient_scope", message, {
        challenge: insufficientScopeChallenge(target.metadataUrl, oauthScopes(required), message),
      });
    },

    challenge(target, operationScopes = target.scopes) {
      return challenge(target, operationScopes);
    },
  };
}
