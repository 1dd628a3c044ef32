import type { ResourceServer, TokenExchangeOptions, TokenExchanger } from "@trestle/auth";
import type { RouterConfig } from "../config.js";

/** Who the router knows requests to be from: the OAuth resource server (the policy is the audit module's). */
export interface IdentityModule {
  /** The router as an OAuth 2.1 resource server; absent without `oauth`. */
  readonly resourceServer: ResourceServer | undefined;
  /** The RFC 9728 document a well-known path asks for, or `undefined`. */
  protectedResourceMetadata(path: string): object | undefined;
  /** Makes an upstream's token exchanger; absent without `oauth` (only an OAuth caller has a token to exchange). */
  readonly createTokenExchanger: ((options: TokenExchangeOptions) => TokenExchanger) | undefined;
}

/** The router scopes a request to the endpoint at `path` needs, named in its metadata and challenges. */
function scopesOfEndpoint(path: string): string[] {
  if (path === "/api/v1/management/discovery" || path.startsWith("/api/v1/management/discovery/"))
    return ["register"];
  if (path === "/api" || path.startsWith("/api/")) return ["admin"];
  return ["mcp"];
}

/**
 * The router's identity from its configuration: with `oauth` (and `publicUrl`), a resource server trusting the
 * configured issuers (JWTs checked with `jose` against their keys, opaque tokens introspected), which describes
 * each endpoint in its RFC 9728 document. `@trestle/auth` (and `jose`) is loaded only then.
 */
export async function createIdentityModule(config: RouterConfig): Promise<IdentityModule> {
  const oauth = config.oauth && config.publicUrl ? await import("@trestle/auth") : undefined;
  const resourceServer =
    oauth && config.oauth && config.publicUrl
      ? oauth.createResourceServer({
          publicUrl: config.publicUrl,
          oauth: oauth.createOAuthVerifier({
            issuers: config.oauth.issuers,
            ...(config.oauth.scopeMap ? { scopeMap: config.oauth.scopeMap } : {}),
            // A rotated signing key is fetched once a token names it, at most this often.
            ...(config.oauth.jwksCooldownMs ? { jwksCooldownMs: config.oauth.jwksCooldownMs } : {}),
          }),
        })
      : undefined;
  return {
    resourceServer,
    createTokenExchanger: oauth?.createTokenExchanger,
    protectedResourceMetadata(path) {
      const endpointPath = resourceServer?.metadataEndpointPath(path);
      if (endpointPath === undefined || !resourceServer) return undefined;
      return resourceServer.endpoint(endpointPath, { scopes: scopesOfEndpoint(endpointPath) }).metadata;
    },
  };
}
