/**
 * What went wrong, as a stable code a caller can branch on.
 *
 * - `missing_token`: the request carries no bearer token (401, a challenge without an `error`, RFC 6750 §3.1).
 * - `invalid_token`: the token is malformed, expired, not yet valid, from an issuer that is not accepted, for
 *   another audience, signed with an algorithm or key that is not accepted, unknown, or inactive (401).
 * - `insufficient_scope`: the token is valid but does not grant every scope the operation needs (403).
 * - `unavailable`: the token could not be checked because an authorization server (discovery, JWKS,
 *   introspection) did not answer usefully (503); says nothing about the token itself.
 * - `exchange_refused`: the token endpoint answered a token exchange with an OAuth error (403).
 * - `exchange_failed`: a token exchange could not be completed (unreachable endpoint, bad answer) (502).
 * - `configuration`: the options given to a factory are not usable (thrown when the object is created).
 */
export type AuthErrorCode =
  | "missing_token"
  | "invalid_token"
  | "insufficient_scope"
  | "unavailable"
  | "exchange_refused"
  | "exchange_failed"
  | "configuration";

const STATUS: Readonly<Record<AuthErrorCode, number>> = {
  missing_token: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  unavailable: 503,
  exchange_refused: 403,
  exchange_failed: 502,
  configuration: 500,
};

/** Options for {@link AuthError}. */
export interface AuthErrorOptions {
  /** The value of the `WWW-Authenticate` header to send with the response, when there is one. */
  challenge?: string;
  /** What caused this error (kept for debugging; never a token or a secret). */
  cause?: unknown;
}

/**
 * The one error type of `@trestle/auth`. It carries the HTTP status to answer with, and for 401/403 the
 * `WWW-Authenticate` challenge to send (set by the resource server, which knows the endpoint). Its message is
 * written for the person holding the token and never contains a token, a secret or a key.
 *
 * @example
 * try {
 *   principal = await resourceServer.authenticate(req.headers.authorization, endpoint);
 * } catch (error) {
 *   if (!AuthError.is(error)) throw error;
 *   res.writeHead(error.status, error.challenge ? { "www-authenticate": error.challenge } : {});
 *   res.end(JSON.stringify({ error: error.message }));
 * }
 */
export class AuthError extends Error {
  override readonly name = "AuthError";
  /** The stable code of this failure. */
  readonly code: AuthErrorCode;
  /** The HTTP status to answer with (401, 403, 502, 503; 500 for a configuration error). */
  readonly status: number;
  /** The `WWW-Authenticate` header value to send, when the resource server attached one. */
  readonly challenge: string | undefined;

  constructor(code: AuthErrorCode, message: string, options: AuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = STATUS[code];
    this.challenge = options.challenge;
  }

  /** True when `value` is an {@link AuthError}. */
  static is(value: unknown): value is AuthError {
    return value instanceof AuthError;
  }

  /** A copy of this error that carries `challenge` as its `WWW-Authenticate` value. */
  withChallenge(challenge: string): AuthError {
    return new AuthError(this.code, this.message, { challenge, cause: this.cause });
  }
}

/** Shorthand for a configuration error, thrown by factories on unusable options. */
export function configurationError(message: string): AuthError {
  return new AuthError("configuration", message);
}
