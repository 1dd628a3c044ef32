import { decodeJwt } from "jose";
import { AuthError, configurationError } from "./errors.js";
import { applyClientAuth, type ClientAuthMethod } from "./internal/client-auth.js";
import { tokenDigest } from "./internal/digest.js";
import {
  checkEndpointUrl,
  type FetchFunction,
  HttpFailure,
  isJsonObject,
  requestJson,
} from "./internal/http.js";
import { SingleFlight, TtlCache } from "./internal/ttl-cache.js";
import { type Principal, principalBearer } from "./principal.js";

/** RFC 8693's grant type. */
export const TOKEN_EXCHANGE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange";
/** RFC 8693 §3: the token type of an OAuth access token. */
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** Options of {@link createTokenExchanger}: one upstream (a service or a forward) and what its token is for. */
export interface TokenExchangeOptions {
  /** The authorization server's token endpoint. */
  tokenEndpoint: string;
  /** The router's client at that server. */
  clientId: string;
  clientSecret: string;
  /** `client_secret_basic` (default) or `client_secret_post`. */
  clientAuth?: ClientAuthMethod;
  /** `audience` parameter(s): the logical name(s) of the upstream. */
  audience?: string | readonly string[];
  /** `resource` parameter(s): the upstream's URI(s) (RFC 8707). Leave out for servers that reject it (Entra ID). */
  resource?: string | readonly string[];
  /** Scope(s) to ask for, joined with spaces. */
  scope?: string | readonly string[];
  /** `requested_token_type`; omitted unless given. */
  requestedTokenType?: string;
  /** `subject_token_type`; default {@link ACCESS_TOKEN_TYPE}. */
  subjectTokenType?: string;
  /** A token is reused until this many seconds before it expires; default 30. */
  expiryMarginSeconds?: number;
  /** Cached tokens, at most; default 1000 (least recently used leave first). */
  cacheMaxEntries?: number;
  /** Timeout of a request to the token endpoint; default 5000 ms. */
  timeoutMs?: number;
  /** Accept plain http to a non-loopback token endpoint (tests and labs only). */
  allowInsecureHttp?: boolean;
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** The clock, in ms since the epoch; default `Date.now`. */
  now?: () => number;
}

/**
 * A token obtained by exchange. `accessToken` is not enumerable: it does not appear in `JSON.stringify`,
 * `Object.keys`, a spread or a log line of the object.
 */
export interface ExchangedToken {
  /** The issued token (non-enumerable). */
  readonly accessToken: string;
  /** `issued_token_type` as the server answered. */
  readonly issuedTokenType: string;
  /** `token_type` as the server answered (`Bearer`, or `N_A` for a token that is not an access token). */
  readonly tokenType: string;
  /** When the token expires, in ms since the epoch, when the server said (or the token is a JWT with `exp`). */
  readonly expiresAt: number | undefined;
  /** The granted scope, when the server said. */
  readonly scope: string | undefined;
}

/** Exchanges callers' tokens for tokens meant for one upstream. */
export interface TokenExchanger {
  /**
   * A token for the upstream on behalf of `principal`, by RFC 8693 exchange of the principal's own bearer
   * token (its `subject_token`). Cached per principal and subject token until `expires_in` minus the margin;
   * concurrent calls for the same principal share one request.
   *
   * @throws {AuthError} `exchange_refused` (403) when the principal has no bearer to exchange (a static
   *   token) or the server answers with an OAuth error; `exchange_failed` (502) when the endpoint cannot be
   *   reached or answers something unusable. Messages never contain a token or the client secret.
   */
  exchange(principal: Principal): Promise<ExchangedToken>;
  /** As {@link TokenExchanger.exchange}, for a subject token held apart from a principal; `cacheKey` names its owner. */
  exchangeToken(subjectToken: string, cacheKey: string): Promise<ExchangedToken>;
}

/**
 * Makes a token exchanger for one upstream.
 *
 * @throws {AuthError} `configuration` when the endpoint is not https (loopback http excepted) or a required
 *   option is empty.
 * @example
 * const exchanger = createTokenExchanger({
 *   tokenEndpoint: "https://idp.example.com/token",
 *   clientId: "trestle",
 *   clientSecret: secret,
 *   audience: "payments",
 * });
 * const { accessToken } = await exchanger.exchange(principal);
 * headers.set("authorization", `Bearer ${accessToken}`);
 */
export function createTokenExchanger(options: TokenExchangeOptions): TokenExchanger {
  const endpoint = checkEndpointUrl(
    options.tokenEndpoint,
    "token endpoint",
    options.allowInsecureHttp ?? false,
  );
  if (options.clientId === "") throw configurationError("tokenExchange.clientId must not be empty");
  if (options.clientSecret === "") throw configurationError("tokenExchange.clientSecret must not be empty");
  const where = `${endpoint.origin}${endpoint.pathname}`;
  const now = options.now ?? Date.now;
  const marginMs = (options.expiryMarginSeconds ?? 30) * 1000;
  const fetchFunction =
    options.fetch ?? ((input: string | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const cache = new TtlCache<ExchangedToken>(options.cacheMaxEntries ?? 1000);
  const inFlight = new SingleFlight<ExchangedToken>();
  const secrets = [options.clientSecret];

  function form(subjectToken: string): URLSearchParams {
    const params = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE_GRANT_TYPE,
      subject_token: subjectToken,
      subject_token_type: options.subjectTokenType ?? ACCESS_TOKEN_TYPE,
    });
    for (const audience of list(options.audience)) params.append("audience", audience);
    for (const resource of list(options.resource)) params.append("resource", resource);
    const scope = list(options.scope).join(" ");
    if (scope !== "") params.set("scope", scope);
    if (options.requestedTokenType !== undefined)
      params.set("requested_token_type", options.requestedTokenType);
    return params;
  }

  async function request(subjectToken: string): Promise<ExchangedToken> {
    const body = form(subjectToken);
    const headers = new Headers({
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    });
    applyClientAuth(
      {
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        method: options.clientAuth ?? "client_secret_basic",
      },
      body,
      headers,
    );
    let answer: Awaited<ReturnType<typeof requestJson>>;
    try {
      answer = await requestJson(
        endpoint,
        { method: "POST", headers, body: body.toString() },
        { fetch: fetchFunction, timeoutMs: options.timeoutMs ?? 5000, maxBytes: 64 * 1024 },
      );
    } catch (error) {
      if (error instanceof HttpFailure) {
        throw new AuthError("exchange_failed", `Token exchange at ${where} failed: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
    const redact = (text: string) => redactSecrets(text, [subjectToken, ...secrets]);
    if (answer.status !== 200) {
      if (isJsonObject(answer.body) && typeof answer.body.error === "string") {
        const description =
          typeof answer.body.error_description === "string"
            ? `: ${redact(answer.body.error_description).slice(0, 200)}`
            : "";
        const code = answer.status >= 500 ? "exchange_failed" : "exchange_refused";
        throw new AuthError(
          code,
          `${where} refused the token exchange (HTTP ${answer.status}, ${redact(answer.body.error).slice(0, 64)}${description})`,
        );
      }
      throw new AuthError(
        "exchange_failed",
        `${where} answered the token exchange with HTTP ${answer.status}`,
      );
    }
    return parseTokenResponse(answer.body, subjectToken, now());
  }

  function parseTokenResponse(body: unknown, subjectToken: string, at: number): ExchangedToken {
    if (!isJsonObject(body) || typeof body.access_token !== "string" || body.access_token === "") {
      throw new AuthError("exchange_failed", `${where} answered the token exchange without an access_token`);
    }
    if (typeof body.token_type !== "string") {
      throw new AuthError("exchange_failed", `${where} answered the token exchange without a token_type`);
    }
    if (body.access_token === subjectToken) {
      // Passing the caller's token on is exactly what the exchange exists to prevent.
      throw new AuthError(
        "exchange_failed",
        `${where} answered the token exchange with the caller's own token`,
      );
    }
    const expiresAt =
      typeof body.expires_in === "number" && body.expires_in > 0
        ? at + body.expires_in * 1000
        : jwtExpiry(body.access_token);
    return tokenRecord(
      body.access_token,
      typeof body.issued_token_type === "string" ? body.issued_token_type : ACCESS_TOKEN_TYPE,
      body.token_type,
      expiresAt,
      typeof body.scope === "string" ? body.scope : undefined,
    );
  }

  async function exchangeToken(subjectToken: string, owner: string): Promise<ExchangedToken> {
    if (subjectToken === "") throw new AuthError("exchange_refused", "There is no subject token to exchange");
    const key = `${owner}\u0000${tokenDigest(subjectToken)}`;
    const cached = cache.get(key, now());
    if (cached !== undefined) return cached;
    return inFlight.run(key, async () => {
      const token = await request(subjectToken);
      const at = now();
      if (token.expiresAt !== undefined) cache.set(key, token, token.expiresAt - marginMs, at);
      return token;
    });
  }

  return {
    exchangeToken,
    exchange(principal) {
      const bearer = principalBearer(principal);
      if (bearer === undefined) {
        return Promise.reject(
          new AuthError(
            "exchange_refused",
            `"${principal.name}" authenticated with a static token, which cannot be exchanged for an upstream token`,
          ),
        );
      }
      return exchangeToken(bearer, principal.id);
    },
  };
}

function tokenRecord(
  accessToken: string,
  issuedTokenType: string,
  tokenType: string,
  expiresAt: number | undefined,
  scope: string | undefined,
): ExchangedToken {
  const record = { issuedTokenType, tokenType, expiresAt, scope };
  Object.defineProperty(record, "accessToken", { value: accessToken, enumerable: false });
  return Object.freeze(record) as ExchangedToken;
}

function list(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  return typeof value === "string" ? [value] : value;
}

function jwtExpiry(token: string): number | undefined {
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === "number" ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (secret.length >= 4) result = result.split(secret).join("[redacted]");
  return result;
}
