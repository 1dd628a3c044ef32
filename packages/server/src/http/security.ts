import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Principal as OAuthPrincipal, ProtectedEndpoint, ResourceServer } from "@trestle/auth";
// The modules of their own, not the package's index: static tokens never load the OAuth verifier (nor jose).
import { AuthError } from "@trestle/auth/errors";
import { principalBearer } from "@trestle/auth/principal";
import { ANONYMOUS_PRINCIPAL, type CallerPrincipal } from "../calls/caller.js";
import type { RateLimit } from "./rate-limit.js";

/** What a token allows. */
export type TokenScope = "mcp" | "admin" | "register";

/** A configured access token. The token text itself never leaves this module: not in logs, not in errors. */
export interface AccessToken {
  /** A name for logs and events (never the token). */
  name: string;
  token: string;
  scopes: readonly TokenScope[];
  /** Namespaces this token may use over MCP; all when absent. */
  namespaces?: readonly string[];
  /** Requests this token may make; the router's default when absent. */
  rateLimit?: RateLimit | undefined;
}

/**
 * Who made a request, after token checks: one frozen object per configured token, the same for each of its requests
 * (per-principal caches key on it). It is the call service's principal as it is: a static token's id is its name.
 */
export interface Principal extends CallerPrincipal {
  readonly scopes: readonly TokenScope[];
  readonly namespaces?: readonly string[];
  readonly rateLimit?: RateLimit;
}

/** The outcome of checking a request's bearer token. */
export type AuthOutcome =
  | { ok: true; principal: Principal | undefined }
  | {
      ok: false;
      /** 401 (no or a bad token), 403 (not allowed here), 503 (an OAuth issuer could not be asked). */
      status: 401 | 403 | 503;
      message: string;
      /** The `WWW-Authenticate` value to send with it (RFC 6750, with RFC 9728's `resource_metadata` under OAuth). */
      challenge?: string;
    };

/** Options for {@link createTokenAuthenticator}. */
export interface TokenAuthenticatorOptions {
  /**
   * The router as an OAuth 2.1 resource server (`@trestle/auth`, made with the router's public URL and the trusted
   * issuers): a bearer token that is no configured static token is verified there, and challenges name the
   * endpoint's metadata document. With it, every scope is closed, with or without static tokens.
   */
  oauth?: ResourceServer;
  /**
   * Tokens the router made for itself (the built-in services' register-only credential). They authenticate like
   * configured tokens but do not count as configuration: with only internal tokens, the router stays open.
   */
  internalTokens?: readonly AccessToken[];
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** True when `principal` may act in `scope`: it holds the scope, or `admin`, which implies every scope. */
export function allows(principal: Principal, scope: TokenScope): boolean {
  return principal.scopes.includes(scope) || principal.scopes.includes("admin");
}

/**
 * Checks bearer tokens in constant time (each candidate is compared through its SHA-256 digest, so neither the
 * length nor the content leaks through timing).
 *
 * The rules: `admin` implies every scope and every namespace. With any token configured, every scope is
 * closed: a request needs a token that allows it. With no token configured, every scope is open (the router
 * then listens on loopback only, see {@link checkListenAddress}); a request that still presents a known token
 * is attributed to that token's principal, so registrations stay bound to who made them.
 */
export function createTokenAuthenticator(
  tokens: readonly AccessToken[],
  options: TokenAuthenticatorOptions = {},
) {
  const entries = [...tokens, ...(options.internalTokens ?? [])].map((t) => {
    const principal: Principal = Object.freeze({
      id: t.name,
      name: t.name,
      scopes: t.scopes,
      groups: Object.freeze([]),
      claims: Object.freeze({}),
      ...(t.namespaces ? { namespaces: t.namespaces } : {}),
      ...(t.rateLimit ? { rateLimit: t.rateLimit } : {}),
    });
    return { hash: digest(t.token), principal };
  });
  const oauth = options.oauth;
  const closed = tokens.length > 0 || oauth !== undefined;
  /** The OAuth principal behind each router principal made from one, for reading its bearer (a token exchange). */
  const bearerOwners = new WeakMap<Principal, OAuthPrincipal>();
  /** An OAuth principal as the router's: the same object for the same verified principal (caches key on it). */
  const fromOAuth = new WeakMap<OAuthPrincipal, Principal>();
  const routerPrincipal = (verified: OAuthPrincipal): Principal => {
    let principal = fromOAuth.get(verified);
    if (!principal) {
      principal = Object.freeze({
        id: verified.id,
        name: verified.name,
        scopes: verified.scopes.filter(
          (s): s is TokenScope => s === "mcp" || s === "admin" || s === "register",
        ),
        groups: verified.groups,
        claims: verified.claims,
        ...(verified.namespaces ? { namespaces: verified.namespaces } : {}),
      });
      // The bearer rides out of sight on the verified principal (for a token exchange): keep the link.
      bearerOwners.set(principal, verified);
      fromOAuth.set(verified, principal);
    }
    return principal;
  };

  function identify(req: IncomingMessage): Principal | undefined | null {
    const header = req.headers.authorization;
    if (typeof header !== "string") return undefined;
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match) return null;
    const given = digest(match[1] as string);
    let found: (typeof entries)[number] | undefined;
    for (const entry of entries) if (timingSafeEqual(entry.hash, given)) found = entry;
    return found ? found.principal : null;
  }

  /** What a principal that was identified may do here: itself, or why not. */
  function admit(
    principal: Principal,
    scope: TokenScope,
    namespace: string | undefined,
    insufficient: () => string | undefined,
  ): AuthOutcome {
    if (!allows(principal, scope)) {
      const challenge = insufficient();
      return {
        ok: false,
        status: 403,
        message: `The token '${principal.name}' does not allow ${scope} access`,
        ...(challenge ? { challenge } : {}),
      };
    }
    if (namespace !== undefined && !mayUseNamespace(principal, namespace)) {
      return {
        ok: false,
        status: 403,
        message: `The token '${principal.name}' does not allow this namespace`,
      };
    }
    return { ok: true, principal };
  }

  /** The 403 challenge of `endpoint` under OAuth, naming every scope the operation needs. */
  const insufficientScope = (
    endpoint: ProtectedEndpoint | undefined,
    principal: Principal,
    scope: TokenScope,
  ) => {
    if (!oauth || !endpoint) return undefined;
    try {
      oauth.authorize(principal as unknown as OAuthPrincipal, endpoint, [scope]);
    } catch (error) {
      if (AuthError.is(error)) return error.challenge;
    }
    return undefined;
  };

  return {
    /**
     * The OAuth access token `principal` was authenticated with, as a token exchange's subject; `undefined` for a
     * static token or an anonymous principal (a static token is never sent anywhere).
     */
    bearerOf(principal: CallerPrincipal): string | undefined {
      const verified = bearerOwners.get(principal as Principal);
      return verified ? principalBearer(verified) : undefined;
    },
    /** True when tokens (or OAuth) are configured, so that every scope needs one. */
    get closed(): boolean {
      return closed;
    },
    /**
     * Checks the request's static token for `scope` (and `namespace` for MCP). A refusal never says whether the
     * namespace exists, and reads the same for every namespace, so it cannot be used to enumerate them. For a
     * router without OAuth; {@link authenticate} checks OAuth tokens too.
     */
    check(req: IncomingMessage, scope: TokenScope, namespace?: string): AuthOutcome {
      const principal = identify(req);
      if (!closed) {
        // Open router: anyone may act; a known token still names who acts, when it allows this scope.
        return { ok: true, principal: principal && allows(principal, scope) ? principal : undefined };
      }
      if (principal === undefined) return { ok: false, status: 401, message: "A bearer token is required" };
      if (principal === null) return { ok: false, status: 401, message: "The bearer token is not valid" };
      return admit(principal, scope, namespace, () => undefined);
    },
    /**
     * As {@link check}, and a bearer token that is no static token is verified as an OAuth access token for the
     * endpoint at `endpointPath` (`/mcp`, `/team-a/mcp`, `/a2a`, `/api`), when OAuth is configured. Refusals
     * carry the challenge to send: with OAuth, `resource_metadata` and `scope` (401) or `insufficient_scope`
     * naming every scope needed (403).
     */
    async authenticate(
      req: IncomingMessage,
      scope: TokenScope,
      endpointPath: string,
      namespace?: string,
    ): Promise<AuthOutcome> {
      if (!oauth) return this.check(req, scope, namespace);
      const endpoint = oauth.endpoint(endpointPath, { scopes: [scope] });
      const known = identify(req);
      if (known) return admit(known, scope, namespace, () => insufficientScope(endpoint, known, scope));
      try {
        const verified = await oauth.authenticate(req.headers.authorization, endpoint, [scope]);
        const principal = routerPrincipal(verified);
        return admit(principal, scope, namespace, () => insufficientScope(endpoint, principal, scope));
      } catch (error) {
        if (!AuthError.is(error)) throw error;
        return {
          ok: false,
          status: error.status === 503 ? 503 : error.status === 403 ? 403 : 401,
          message: error.message,
          ...(error.challenge ? { challenge: error.challenge } : {}),
        };
      }
    },
  };
}

/** True when `principal` may use `namespace` over MCP: `admin`, or no namespace list, or a listed one. */
export function mayUseNamespace(principal: Principal, namespace: string): boolean {
  if (principal.scopes.includes("admin") || !principal.namespaces) return true;
  return principal.namespaces.includes(namespace);
}

/** What a registration is bound to: the token's principal id (its name), or the anonymous principal's. */
export function principalName(principal: Principal | undefined): string {
  return principal?.id ?? ANONYMOUS_PRINCIPAL.id;
}

/** True when `host` names only this machine: a loopback address or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost") || h === "::1") return true;
  if (/^127(\.\d{1,3}){3}$/.test(h)) return true;
  // An IPv4-mapped loopback address (::ffff:127.x.y.z).
  return /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Decides whether the router may listen on `host`. With tokens configured it may listen anywhere. Without
 * any, every scope is open, so only loopback is allowed, unless `insecureOpen` says the operator wants an open
 * router on the network (the caller must then log a warning).
 *
 * @returns `ok`, `open-on-network` (allowed by `insecureOpen`: warn), or the refusal's message.
 */
export function checkListenAddress(options: {
  host: string;
  tokenCount: number;
  insecureOpen: boolean;
}): { ok: true; openOnNetwork: boolean } | { ok: false; message: string } {
  if (options.tokenCount > 0 || isLoopbackHost(options.host)) return { ok: true, openOnNetwork: false };
  if (options.insecureOpen) return { ok: true, openOnNetwork: true };
  return {
    ok: false,
    message:
      `Refusing to listen on ${options.host} with no tokens configured: every scope (MCP, management, ` +
      `registration) would be open to the network. Configure tokens (TRESTLE_TOKENS or 'tokens' in the config ` +
      `file, with at least one 'admin' token), listen on 127.0.0.1, or pass --insecure-open ` +
      `(TRESTLE_INSECURE_OPEN=1) to serve an open router deliberately.`,
  };
}

/** The token authenticator's type. */
export type TokenAuthenticator = ReturnType<typeof createTokenAuthenticator>;

/** Options for {@link createOriginGuard}. */
export interface OriginGuardOptions {
  /** Host names (without port) the router answers to; `*` accepts any. Loopback names are always accepted. */
  allowedHosts: readonly string[];
  /** Origins (scheme://host[:port]) allowed to call from a browser; also the CORS allowlist. */
  allowedOrigins: readonly string[];
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1).toLowerCase();
  const colon = hostHeader.lastIndexOf(":");
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/**
 * DNS-rebinding protection: a request must name an allowed host in `Host`, and a browser's `Origin` must be an
 * allowed origin, a loopback origin, or the request's own (`Origin` naming the host and port in `Host`, when that
 * host is allowed by name rather than by `*`).
 */
export function createOriginGuard(options: OriginGuardOptions) {
  const anyHost = options.allowedHosts.includes("*");
  const hosts = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  const origins = new Set(options.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, "")));
  return {
    /** Why the request is refused, or undefined when it may go on. */
    check(req: IncomingMessage): string | undefined {
      const host = req.headers.host;
      if (!anyHost) {
        if (typeof host !== "string" || host.length === 0) return "The Host header is missing";
        const name = hostName(host);
        if (!LOOPBACK.has(name) && !hosts.has(name)) return `The host '${name}' is not allowed`;
      }
      const origin = req.headers.origin;
      // "null" (a sandboxed iframe, a file: page) is foreign unless configured: it can send without a preflight.
      if (typeof origin === "string") {
        const normalized = origin.toLowerCase().replace(/\/$/, "");
        if (origins.has(normalized) || origins.has("*")) return undefined;
        if (normalized === "null") return "The origin 'null' is not allowed";
        let originUrl: URL;
        try {
          originUrl = new URL(normalized);
        } catch {
          return "The Origin header is not a URL";
        }
        // A page the router served itself (the admin UI at /ui) calling back on its own origin: the Origin names
        // the very host and port the request was sent to, a host that passed the check above by name. Not with
        // `*`: there a rebinding page's Host and Origin both name the attacker's host.
        if (!anyHost && typeof host === "string" && originUrl.host === host.toLowerCase()) return undefined;
        const originHost = originUrl.hostname;
        const bracketed = originHost.includes(":") ? `[${originHost}]` : originHost;
        if (!LOOPBACK.has(bracketed) && !LOOPBACK.has(originHost))
          return `The origin '${origin}' is not allowed`;
      }
      return undefined;
    },
    /** True when `origin` may read responses (CORS). */
    allowsCors(origin: string | undefined): boolean {
      if (!origin) return false;
      const normalized = origin.toLowerCase().replace(/\/$/, "");
      return origins.has(normalized) || origins.has("*");
    },
  };
}

/** The origin guard's type. */
export type OriginGuard = ReturnType<typeof createOriginGuard>;
