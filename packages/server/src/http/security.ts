import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
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
  | { ok: false; status: 401 | 403; message: string };

/** Options for {@link createTokenAuthenticator}. */
export interface TokenAuthenticatorOptions {
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
  const closed = tokens.length > 0;

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

  return {
    /** True when tokens are configured, so that every scope needs one. */
    get closed(): boolean {
      return closed;
    },
    /**
     * Checks the request's token for `scope` (and `namespace` for MCP). A refusal never says whether the
     * namespace exists, and reads the same for every namespace, so it cannot be used to enumerate them.
     */
    check(req: IncomingMessage, scope: TokenScope, namespace?: string): AuthOutcome {
      const principal = identify(req);
      if (!closed) {
        // Open router: anyone may act; a known token still names who acts, when it allows this scope.
        return { ok: true, principal: principal && allows(principal, scope) ? principal : undefined };
      }
      if (principal === undefined) return { ok: false, status: 401, message: "A bearer token is required" };
      if (principal === null) return { ok: false, status: 401, message: "The bearer token is not valid" };
      if (!allows(principal, scope)) {
        return {
          ok: false,
          status: 403,
          message: `The token '${principal.name}' does not allow ${scope} access`,
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
