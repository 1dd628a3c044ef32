import { createHash, timingSafeEqual } from "node:crypto";
import { configurationError } from "./errors.js";
import { createPrincipal, type Principal } from "./principal.js";

/** A configured static bearer token. */
export interface StaticTokenConfig {
  /** The principal's name (for logs, events, policies); distinct per token. */
  name: string;
  /** The secret bearer value. */
  token: string;
  /** Router scopes it grants (`mcp`, `admin`, `register`). */
  scopes: readonly string[];
  /** Namespaces it may use over MCP; all when absent. */
  namespaces?: readonly string[];
  /** Groups, for policies (`"ops" in principal.groups`). */
  groups?: readonly string[];
}

/** Recognises configured static tokens. */
export interface StaticTokenVerifier {
  /**
   * The principal of `token` when it is one of the configured tokens, else `undefined`. Takes the same time
   * whichever token matches, or none: every candidate is compared through its SHA-256 digest in constant time.
   */
  verify(token: string): Principal | undefined;
  /** How many tokens are configured. */
  readonly size: number;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/**
 * Makes a verifier for static tokens. Each token's principal is made once (`kind: "token"`,
 * `id: "token:<name>"`, no claims) and returned for every request with that token; it carries no bearer, so a
 * static token is never handed to a token exchange.
 *
 * @throws {AuthError} `configuration` when a name or a token is empty or appears twice.
 */
export function createStaticTokenVerifier(tokens: readonly StaticTokenConfig[]): StaticTokenVerifier {
  const names = new Set<string>();
  const digests = new Set<string>();
  const entries = tokens.map((config) => {
    if (config.name === "") throw configurationError("A static token needs a name");
    if (config.token === "") throw configurationError(`The static token "${config.name}" is empty`);
    if (names.has(config.name)) throw configurationError(`Two static tokens are named "${config.name}"`);
    names.add(config.name);
    const hash = sha256(config.token);
    if (digests.has(hash.toString("hex"))) {
      throw configurationError(`The static token "${config.name}" has the same value as another one`);
    }
    digests.add(hash.toString("hex"));
    const principal = createPrincipal({
      kind: "token",
      id: `token:${config.name}`,
      name: config.name,
      scopes: config.scopes,
      ...(config.groups ? { groups: config.groups } : {}),
      ...(config.namespaces ? { namespaces: config.namespaces } : {}),
    });
    return { hash, principal };
  });

  return {
    size: entries.length,
    verify(token) {
      // Nothing to compare with (the list's size is configuration, not a secret): no digest to make.
      if (entries.length === 0) return undefined;
      const given = sha256(token);
      let found: Principal | undefined;
      for (const entry of entries) if (timingSafeEqual(entry.hash, given)) found = entry.principal;
      return found;
    },
  };
}
