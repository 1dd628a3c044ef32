import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";
import { type AuthorizationServerMetadata, discoverAuthorizationServer } from "../discovery.js";
import { AuthError } from "../errors.js";
import { checkEndpointUrl, type FetchFunction, HttpFailure } from "./http.js";

/** What one issuer needs from the verifier's shared settings. */
export interface IssuerTrustSettings {
  fetch: FetchFunction;
  timeoutMs: number;
  allowInsecureHttp: boolean;
  jwksCooldownMs: number;
  jwksCacheMaxAgeMs: number;
  /** After a failed discovery, requests fail fast for this long instead of asking again. */
  discoveryRetryMs: number;
  now: () => number;
}

/**
 * The keys and endpoints of one issuer, found lazily (discovery on first use, once; JWKS through jose, which
 * caches keys and refetches on an unknown `kid` at most once per cooldown).
 */
export class IssuerTrust {
  readonly issuer: string;
  readonly #configuredJwksUri: URL | undefined;
  readonly #configuredIntrospection: URL | undefined;
  readonly #settings: IssuerTrustSettings;
  #metadata: Promise<AuthorizationServerMetadata> | undefined;
  #metadataFailure: { error: AuthError; at: number } | undefined;
  #jwks: JWTVerifyGetKey | undefined;

  constructor(
    issuer: string,
    jwksUri: string | undefined,
    introspectionEndpoint: string | undefined,
    settings: IssuerTrustSettings,
  ) {
    this.issuer = issuer;
    this.#settings = settings;
    checkEndpointUrl(issuer, "issuer", settings.allowInsecureHttp);
    this.#configuredJwksUri =
      jwksUri === undefined ? undefined : checkEndpointUrl(jwksUri, "jwksUri", settings.allowInsecureHttp);
    this.#configuredIntrospection =
      introspectionEndpoint === undefined
        ? undefined
        : checkEndpointUrl(introspectionEndpoint, "introspection endpoint", settings.allowInsecureHttp);
  }

  /** The key set to verify this issuer's JWTs with. @throws {AuthError} `unavailable` */
  async keys(): Promise<JWTVerifyGetKey> {
    if (this.#jwks !== undefined) return this.#jwks;
    let url = this.#configuredJwksUri;
    if (url === undefined) {
      const metadata = await this.metadata();
      if (typeof metadata.jwks_uri !== "string") {
        throw new AuthError("unavailable", `The issuer ${this.issuer} publishes no jwks_uri in its metadata`);
      }
      url = this.#checkedDiscovered(metadata.jwks_uri, "jwks_uri");
    }
    this.#jwks ??= createRemoteJWKSet(url, {
      cooldownDuration: this.#settings.jwksCooldownMs,
      cacheMaxAge: this.#settings.jwksCacheMaxAgeMs,
      timeoutDuration: this.#settings.timeoutMs,
      [customFetch]: (input, init) =>
        this.#settings.fetch(input, init).catch((error: unknown) => {
          // jose turns a TimeoutError into its own timeout error; anything else means the keys were unreachable.
          if (error instanceof Error && error.name === "TimeoutError") throw error;
          throw new HttpFailure(`${url.origin}${url.pathname} could not be reached`, { cause: error });
        }),
    });
    return this.#jwks;
  }

  /** The introspection endpoint: configured, else discovered. @throws {AuthError} `unavailable` */
  async introspectionEndpoint(): Promise<URL> {
    if (this.#configuredIntrospection !== undefined) return this.#configuredIntrospection;
    const metadata = await this.metadata();
    if (typeof metadata.introspection_endpoint !== "string") {
      throw new AuthError(
        "unavailable",
        `The issuer ${this.issuer} publishes no introspection_endpoint in its metadata`,
      );
    }
    return this.#checkedDiscovered(metadata.introspection_endpoint, "introspection_endpoint");
  }

  /** The issuer's discovered metadata, fetched once. @throws {AuthError} `unavailable` */
  metadata(): Promise<AuthorizationServerMetadata> {
    const failure = this.#metadataFailure;
    if (failure !== undefined && this.#settings.now() - failure.at < this.#settings.discoveryRetryMs) {
      return Promise.reject(failure.error);
    }
    this.#metadata ??= discoverAuthorizationServer(this.issuer, {
      fetch: this.#settings.fetch,
      timeoutMs: this.#settings.timeoutMs,
      allowInsecureHttp: this.#settings.allowInsecureHttp,
    }).catch((error: unknown) => {
      // Forget the failed attempt so that a later request tries again, after the retry delay.
      this.#metadata = undefined;
      const authError =
        error instanceof AuthError
          ? error
          : new AuthError("unavailable", `Discovery of ${this.issuer} failed`);
      this.#metadataFailure = { error: authError, at: this.#settings.now() };
      throw authError;
    });
    return this.#metadata;
  }

  #checkedDiscovered(value: string, member: string): URL {
    try {
      return checkEndpointUrl(value, `${member} of ${this.issuer}`, this.#settings.allowInsecureHttp);
    } catch (error) {
      throw new AuthError("unavailable", (error as Error).message);
    }
  }
}
