import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
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

/** Who made a request, after token checks: one object per configured token, the same for each of its requests. */
export interface Principal {
  name: string;
  scopes: readonly TokenScope[];
  namespaces?: readonly string[];
  rateLimit?: RateLimit;
}

/** The outcome of checking a request's bearer token. */
export type AuthOutcome =
  | { ok: true; principal: Principal | undefined }
  | { ok: false; status: 401 | 403; message: string };

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Checks bearer tokens in constant time (each candidate is compared through its SHA-256 digest, so neither the
 * length nor the content leaks through timing). With no token configured for a scope, that scope is open.
 */
export function createTokenAuthenticator(tokens: readonly AccessToken[]) {
  const entries = tokens.map((t) => {
    const principal: Principal = Object.freeze({
      name: t.name,
      scopes: t.scopes,
      ...(t.namespaces ? { namespaces: t.namespaces } : {}),
      ...(t.rateLimit ? { rateLimit: t.rateLimit } : {}),
    });
    return { scopes: t.scopes, hash: digest(t.token), principal };
  });

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
    /** True when some token is configured for `scope`, so requests in that scope must present one. */
    requires(scope: TokenScope): boolean {
      return entries.some((e) => e.scopes.includes(scope));
    },
    /** Checks the request's token for `scope` (and `namespace` for MCP). */
    check(req: IncomingMessage, scope: TokenScope, namespace?: string): AuthOutcome {
      if (!this.requires(scope)) return { ok: true, principal: undefined };
      const principal = identify(req);
      if (principal === undefined) return { ok: false, status: 401, message: "A bearer token is required" };
      if (principal === null) return { ok: false, status: 401, message: "The bearer token is not valid" };
      if (
        !principal.scopes.includes(scope) &&
        !(scope === "register" && principal.scopes.includes("admin"))
      ) {
        return {
          ok: false,
          status: 403,
          message: `The token '${principal.name}' does not allow ${scope} access`,
        };
      }
      if (namespace !== undefined && principal.namespaces && !principal.namespaces.includes(namespace)) {
        return {
          ok: false,
          status: 403,
          message: `The token '${principal.name}' does not allow the namespace '${namespace || "default"}'`,
        };
      }
      return { ok: true, principal };
    },
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
 * allowed origin or a loopback origin.
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
        let originHost: string;
        try {
          originHost = new URL(normalized).hostname;
        } catch {
          return "The Origin header is not a URL";
        }
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
