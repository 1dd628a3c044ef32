import { AuthError } from "./errors.js";
import {
  checkEndpointUrl,
  type FetchFunction,
  HttpFailure,
  isJsonObject,
  requestJson,
} from "./internal/http.js";

/** The fields of an authorization server's metadata (RFC 8414 / OpenID Connect Discovery) Trestle reads. */
export interface AuthorizationServerMetadata {
  /** Identical to the issuer the document was fetched for (checked). */
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  token_endpoint?: string;
  /** Every other member of the document, as published. */
  [member: string]: unknown;
}

/** Options of {@link discoverAuthorizationServer}. */
export interface DiscoveryOptions {
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Per request; default 5000. */
  timeoutMs?: number;
  /** Accept plain http to a non-loopback issuer (never in production). */
  allowInsecureHttp?: boolean;
}

/**
 * The metadata URLs to try for `issuer`, in the order MCP 2026-07-28 gives (RFC 8414 §3.1 and §5): for
 * `https://as/tenant1`: `/.well-known/oauth-authorization-server/tenant1`,
 * `/.well-known/openid-configuration/tenant1`, `/tenant1/.well-known/openid-configuration`; for an issuer
 * without a path: `/.well-known/oauth-authorization-server`, `/.well-known/openid-configuration`.
 */
export function discoveryUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const origin = url.origin;
  if (path === "") {
    return [
      new URL(`${origin}/.well-known/oauth-authorization-server`),
      new URL(`${origin}/.well-known/openid-configuration`),
    ];
  }
  return [
    new URL(`${origin}/.well-known/oauth-authorization-server${path}`),
    new URL(`${origin}/.well-known/openid-configuration${path}`),
    new URL(`${origin}${path}/.well-known/openid-configuration`),
  ];
}

/**
 * Fetches an issuer's metadata, trying {@link discoveryUrls} in order, and accepts the first document whose
 * `issuer` is identical to `issuer` (a document naming another issuer is never used: RFC 8414 §3.3).
 *
 * @throws {AuthError} `configuration` when `issuer` is not a usable https URL; `unavailable` when no URL gives
 *   a valid document (the message says what each answered).
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: DiscoveryOptions = {},
): Promise<AuthorizationServerMetadata> {
  checkEndpointUrl(issuer, "issuer", options.allowInsecureHttp ?? false);
  const fetchFunction = options.fetch ?? globalThis.fetch;
  const problems: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    try {
      const answer = await requestJson(
        url,
        { method: "GET", headers: { accept: "application/json" } },
        { fetch: fetchFunction, timeoutMs: options.timeoutMs ?? 5000, maxBytes: 256 * 1024 },
      );
      if (answer.status !== 200) {
        problems.push(`${url.pathname}: HTTP ${answer.status}`);
        continue;
      }
      if (!isJsonObject(answer.body)) {
        problems.push(`${url.pathname}: not a JSON object`);
        continue;
      }
      if (answer.body.issuer !== issuer) {
        problems.push(`${url.pathname}: names the issuer ${JSON.stringify(answer.body.issuer)}`);
        continue;
      }
      return answer.body as AuthorizationServerMetadata;
    } catch (error) {
      if (!(error instanceof HttpFailure)) throw error;
      problems.push(error.message);
    }
  }
  throw new AuthError(
    "unavailable",
    `The metadata of the issuer ${issuer} could not be discovered (${problems.join("; ")})`,
  );
}
