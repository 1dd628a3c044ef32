import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { type ClaimNames, claimStrings, readClaim, tokenScopesOf } from "./claims.js";
import { AuthError, configurationError } from "./errors.js";
import type { ClientAuthMethod } from "./internal/client-auth.js";
import { tokenDigest } from "./internal/digest.js";
import type { FetchFunction } from "./internal/http.js";
import { introspectToken } from "./internal/introspection.js";
import { IssuerTrust } from "./internal/issuer-trust.js";
import { authErrorFromJose } from "./internal/jose-errors.js";
import { SingleFlight, TtlCache } from "./internal/ttl-cache.js";
import { createPrincipal, type Principal } from "./principal.js";
import { createScopeMapping, type ScopeMapping } from "./scope-mapping.js";

/** Asymmetric JWS algorithms a verifier may accept (verified against the issuer's published public keys). */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = Object.freeze([
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
]);

/** RFC 7662 introspection of opaque tokens at one issuer. */
export interface IntrospectionConfig {
  /** The introspection endpoint; discovered (`introspection_endpoint`) when absent. */
  endpoint?: string;
  /** The router's client at the issuer. */
  clientId: string;
  clientSecret: string;
  /** Default `client_secret_basic`. */
  authMethod?: ClientAuthMethod;
  /**
   * Refuse an active token whose answer carries no `aud` (default true): a token must be shown to be for
   * this resource. Set false only for an issuer whose introspection never says.
   */
  requireAudience?: boolean;
}

/** One trusted issuer. */
export interface IssuerConfig {
  /** The issuer identifier, exactly as tokens carry it in `iss`. */
  issuer: string;
  /** The JWKS URL; discovered (RFC 8414, then OpenID Connect Discovery) when absent. */
  jwksUri?: string;
  /**
   * Audiences a token from this issuer must name (any one of them). When absent, the resource URIs passed to
   * {@link OAuthVerifier.verify} (the endpoint's canonical URI). When present, they replace those.
   */
  audiences?: readonly string[];
  /** Accepted signing algorithms; default {@link ASYMMETRIC_ALGORITHMS}. `none` and HMAC are never accepted. */
  algorithms?: readonly string[];
  /** Claim names for the principal, groups and scopes. */
  claims?: ClaimNames;
  /** Introspection for opaque (non-JWT) tokens; at most one issuer may have it. */
  introspection?: IntrospectionConfig;
}

/** Options of {@link createOAuthVerifier}. */
export interface OAuthVerifierOptions {
  /** The issuers whose tokens are accepted (at least one). */
  issuers: readonly IssuerConfig[];
  /**
   * OAuth scope value → router scopes. Without it, the values `mcp`, `admin`, `register` grant the router
   * scopes of the same names; with it, only the values it lists grant anything.
   */
  scopeMap?: Readonly<Record<string, readonly string[]>>;
  /** The router's scopes; default `mcp`, `admin`, `register`. */
  routerScopes?: readonly string[];
  /** Leeway for `exp`, `nbf` and `iat`, in seconds; default 30, at most 300. */
  clockToleranceSeconds?: number;
  /** The shortest time between two JWKS fetches caused by an unknown `kid`; default 30000 ms. */
  jwksCooldownMs?: number;
  /** How long fetched keys are used before they are fetched again; default 600000 ms. */
  jwksCacheMaxAgeMs?: number;
  /** Timeout of each request to an authorization server; default 5000 ms. */
  requestTimeoutMs?: number;
  /** After a failed discovery, fail fast for this long before asking again; default 5000 ms. */
  discoveryRetryMs?: number;
  /** How long a verified token's principal is reused (never past `exp`); default 60 s; 0 turns it off. */
  verifiedCacheSeconds?: number;
  /** How long an introspection answer is reused (never past `exp`); default 60 s. */
  introspectionCacheSeconds?: number;
  /** How long an inactive introspection answer is remembered; default 10 s. */
  inactiveCacheSeconds?: number;
  /** Entries per cache (verified tokens, introspection answers); default 4096. */
  cacheMaxEntries?: number;
  /** Accept plain http to non-loopback issuers (tests and labs only). */
  allowInsecureHttp?: boolean;
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** The clock, in ms since the epoch; default `Date.now`. */
  now?: () => number;
}

/** Checks OAuth access tokens and turns them into principals. */
export interface OAuthVerifier {
  /**
   * Verifies `token` for a request to `resource` (one canonical resource URI, or several that are all this
   * resource) and returns its principal, which carries the token out of sight for a later token exchange.
   * JWTs are verified locally (issuer from `iss`, key from the issuer's JWKS, algorithm allowlist, `aud`,
   * `exp` required, `nbf`, clock tolerance); other tokens are introspected. Results are cached by the token's
   * digest until the token expires or the cache time ends, whichever comes first.
   *
   * @throws {AuthError} `invalid_token` (401) for any token that is not valid here; `unavailable` (503)
   *   when the issuer's keys or introspection endpoint could not be reached.
   */
  verify(token: string, resource: string | readonly string[]): Promise<Principal>;
  /** The accepted issuers, in configuration order (for `authorization_servers`). */
  readonly issuers: readonly string[];
  /** The mapping between token scope values and router scopes. */
  readonly scopeMapping: ScopeMapping;
}

/** The longest token looked at; anything longer is refused before any work. */
const MAX_TOKEN_LENGTH = 16 * 1024;

interface Issuer {
  config: IssuerConfig;
  trust: IssuerTrust;
  algorithms: string[];
}

/**
 * Makes a verifier for the configured issuers.
 *
 * @throws {AuthError} `configuration` when there is no issuer, an issuer appears twice, a URL is not https
 *   (loopback http excepted), an algorithm is not an accepted asymmetric one (`none`, `HS256`…), or more than
 *   one issuer has introspection (an opaque token carries no issuer, so it would be sent to several servers).
 * @example
 * const verifier = createOAuthVerifier({ issuers: [{ issuer: "https://idp.example.com" }] });
 * const principal = await verifier.verify(bearer, "https://mcp.example.com/mcp");
 */
export function createOAuthVerifier(options: OAuthVerifierOptions): OAuthVerifier {
  if (options.issuers.length === 0) throw configurationError("oauth.issuers needs at least one issuer");
  const tolerance = options.clockToleranceSeconds ?? 30;
  if (!(tolerance >= 0 && tolerance <= 300)) {
    throw configurationError("clockToleranceSeconds must be between 0 and 300");
  }
  const now = options.now ?? Date.now;
  const settings = {
    fetch: options.fetch ?? ((input: string | URL, init?: RequestInit) => globalThis.fetch(input, init)),
    timeoutMs: options.requestTimeoutMs ?? 5000,
    allowInsecureHttp: options.allowInsecureHttp ?? false,
    jwksCooldownMs: options.jwksCooldownMs ?? 30_000,
    jwksCacheMaxAgeMs: options.jwksCacheMaxAgeMs ?? 600_000,
    discoveryRetryMs: options.discoveryRetryMs ?? 5000,
    now,
  };
  const scopeMapping = createScopeMapping({
    ...(options.routerScopes ? { routerScopes: options.routerScopes } : {}),
    ...(options.scopeMap ? { scopeMap: options.scopeMap } : {}),
  });

  const issuers = new Map<string, Issuer>();
  for (const config of options.issuers) {
    if (issuers.has(config.issuer))
      throw configurationError(`The issuer ${config.issuer} is configured twice`);
    const algorithms = [...(config.algorithms ?? ASYMMETRIC_ALGORITHMS)];
    for (const algorithm of algorithms) {
      if (!ASYMMETRIC_ALGORITHMS.includes(algorithm)) {
        throw configurationError(
          `The algorithm "${algorithm}" is not accepted for ${config.issuer}: only asymmetric algorithms verified against the issuer's published keys are (${ASYMMETRIC_ALGORITHMS.join(", ")})`,
        );
      }
    }
    if (algorithms.length === 0) throw configurationError(`The issuer ${config.issuer} accepts no algorithm`);
    if (config.audiences !== undefined && config.audiences.length === 0) {
      throw configurationError(
        `The issuer ${config.issuer} lists no audience (omit audiences for the default)`,
      );
    }
    const trust = new IssuerTrust(config.issuer, config.jwksUri, config.introspection?.endpoint, settings);
    issuers.set(config.issuer, { config, trust, algorithms });
  }
  const introspecting = [...issuers.values()].filter((issuer) => issuer.config.introspection !== undefined);
  if (introspecting.length > 1) {
    throw configurationError(
      "Only one issuer may have introspection: an opaque token names no issuer, and would be sent to each",
    );
  }
  const introspector = introspecting[0];

  const verifiedCacheMs = (options.verifiedCacheSeconds ?? 60) * 1000;
  const maxEntries = options.cacheMaxEntries ?? 4096;
  const verified = new TtlCache<Principal>(verifiedCacheMs > 0 ? maxEntries : 0);
  const introspected = new TtlCache<Record<string, unknown>>(maxEntries);
  const inFlight = new SingleFlight<Record<string, unknown>>();

  function principalFrom(issuer: Issuer, claims: Record<string, unknown>, token: string): Principal {
    const claimNames = issuer.config.claims ?? {};
    const principalClaim = claimNames.principal ?? "sub";
    let name = readClaim(claims, principalClaim);
    // A token a client got for itself (client credentials) may name no subject, only the client (RFC 7662 §2.2).
    if (name === undefined && claimNames.principal === undefined) name = claims.client_id;
    if (typeof name !== "string" || name === "") {
      throw new AuthError(
        "invalid_token",
        `The token has no "${principalClaim}" claim to name its principal`,
      );
    }
    const tokenScopes = tokenScopesOf(claims, claimNames.scopes);
    const exp = claims.exp;
    return createPrincipal(
      {
        kind: "oauth",
        id: `${issuer.config.issuer}#${name}`,
        name,
        scopes: scopeMapping.grant(tokenScopes),
        tokenScopes,
        groups: claimStrings(readClaim(claims, claimNames.groups ?? "groups")),
        claims,
        issuer: issuer.config.issuer,
        ...(typeof exp === "number" ? { expiresAt: exp } : {}),
      },
      token,
    );
  }

  async function verifyJwt(token: string, iss: unknown, audiences: readonly string[]): Promise<Principal> {
    const issuer = typeof iss === "string" ? issuers.get(iss) : undefined;
    if (issuer === undefined) throw new AuthError("invalid_token", "The token's issuer is not accepted");
    const keys = await issuer.trust.keys();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: issuer.config.issuer,
        audience: [...(issuer.config.audiences ?? audiences)],
        algorithms: issuer.algorithms,
        clockTolerance: tolerance,
        currentDate: new Date(now()),
        requiredClaims: ["exp"],
      }));
    } catch (error) {
      throw authErrorFromJose(error, issuer.config.issuer);
    }
    return principalFrom(issuer, payload, token);
  }

  async function verifyOpaque(
    token: string,
    digest: string,
    audiences: readonly string[],
  ): Promise<Principal> {
    if (introspector === undefined) {
      throw new AuthError(
        "invalid_token",
        "The token is not a JWT, and no issuer is configured to introspect it",
      );
    }
    const config = introspector.config.introspection as IntrospectionConfig;
    const answer = await introspectCached(token, digest, config);
    if (answer.active !== true) throw new AuthError("invalid_token", "The token is not active");
    const seconds = now() / 1000;
    if (typeof answer.exp === "number" && answer.exp <= seconds - tolerance) {
      throw new AuthError("invalid_token", "The token has expired");
    }
    if (typeof answer.nbf === "number" && answer.nbf > seconds + tolerance) {
      throw new AuthError("invalid_token", "The token is not valid yet");
    }
    if (answer.iss !== undefined && answer.iss !== introspector.config.issuer) {
      throw new AuthError("invalid_token", "The token's issuer is not accepted");
    }
    const wanted = introspector.config.audiences ?? audiences;
    const named = claimStrings(
      answer.aud === undefined ? [] : Array.isArray(answer.aud) ? answer.aud : [answer.aud],
    );
    if (named.length === 0 ? config.requireAudience !== false : !named.some((aud) => wanted.includes(aud))) {
      throw new AuthError(
        "invalid_token",
        "The token was not issued for this resource (its audience does not name it)",
      );
    }
    return principalFrom(introspector, answer, token);
  }

  async function introspectCached(
    token: string,
    digest: string,
    config: IntrospectionConfig,
  ): Promise<Record<string, unknown>> {
    const cached = introspected.get(digest, now());
    if (cached !== undefined) return cached;
    return inFlight.run(digest, async () => {
      const endpoint = await (introspector as Issuer).trust.introspectionEndpoint();
      const answer = await introspectToken(
        endpoint,
        token,
        {
          clientId: config.clientId,
          clientSecret: config.clientSecret,
          ...(config.authMethod ? { method: config.authMethod } : {}),
        },
        { fetch: settings.fetch, timeoutMs: settings.timeoutMs },
      );
      const at = now();
      const ttl =
        (answer.active === true
          ? (options.introspectionCacheSeconds ?? 60)
          : (options.inactiveCacheSeconds ?? 10)) * 1000;
      const until = typeof answer.exp === "number" ? Math.min(at + ttl, answer.exp * 1000) : at + ttl;
      introspected.set(digest, answer, until, at);
      return answer;
    });
  }

  return {
    issuers: Object.freeze([...issuers.keys()]),
    scopeMapping,
    async verify(token, resource) {
      if (token === "" || token.length > MAX_TOKEN_LENGTH) {
        throw new AuthError("invalid_token", "The token is empty or too long");
      }
      const audiences = typeof resource === "string" ? [resource] : resource;
      const digest = tokenDigest(token);
      const key = `${digest} ${audiences.join(" ")}`;
      const at = now();
      const hit = verified.get(key, at);
      if (hit !== undefined) return hit;
      const jwt = decodeJwtIssuer(token);
      const principal = jwt.decoded
        ? await verifyJwt(token, jwt.iss, audiences)
        : await verifyOpaque(token, digest, audiences);
      const expiresAt =
        principal.expiresAt === undefined ? Number.POSITIVE_INFINITY : principal.expiresAt * 1000;
      verified.set(key, principal, Math.min(at + verifiedCacheMs, expiresAt), at);
      return principal;
    },
  };
}

/**
 * Whether `token` decodes as a compact JWS (three base64url parts, a JSON header and a JSON payload; nothing
 * verified yet), and its unverified `iss`, which only selects the keys to verify it with. Anything else is
 * treated as an opaque token.
 */
function decodeJwtIssuer(token: string): { decoded: true; iss: unknown } | { decoded: false } {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) return { decoded: false };
  try {
    decodeProtectedHeader(token);
    return { decoded: true, iss: decodeJwt(token).iss };
  } catch {
    return { decoded: false };
  }
}
