import { errors } from "jose";
import { AuthError } from "../errors.js";
import { HttpFailure } from "./http.js";

/**
 * Turns what jose throws while verifying a JWT into an {@link AuthError}: a problem with the token is
 * `invalid_token` (401) with a sentence saying which check failed; a problem reaching the issuer's keys is
 * `unavailable` (503). Messages never quote the token or its claims' values.
 */
export function authErrorFromJose(error: unknown, issuer: string): AuthError {
  const invalid = (message: string) => new AuthError("invalid_token", message, { cause: error });
  if (error instanceof errors.JWTExpired) {
    return invalid(error.claim === "iat" ? "The token was issued too long ago" : "The token has expired");
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "aud":
        return invalid("The token was not issued for this resource (its audience does not name it)");
      case "iss":
        return invalid("The token's issuer is not accepted");
      case "nbf":
        return invalid("The token is not valid yet");
      case "exp":
        return invalid(
          error.reason === "missing" ? "The token has no expiry (exp)" : "The token's expiry is not valid",
        );
      case "iat":
        return invalid("The token's issue time is in the future");
      default:
        return invalid(`The token's "${error.claim}" claim is not valid`);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return invalid("The token's signing algorithm is not accepted");
  if (error instanceof errors.JWKSNoMatchingKey) {
    return invalid(`The token was signed with a key the issuer ${issuer} does not publish`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return invalid("The token's signature is not valid");
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return invalid("The token's signature did not verify with any of the issuer's matching keys");
  }
  if (error instanceof errors.JWKSTimeout) {
    return new AuthError("unavailable", `The keys of the issuer ${issuer} could not be fetched in time`, {
      cause: error,
    });
  }
  if (
    error instanceof errors.JWKSInvalid ||
    (error instanceof errors.JOSEError && error.code === "ERR_JOSE_GENERIC") ||
    error instanceof HttpFailure
  ) {
    return new AuthError("unavailable", `The keys of the issuer ${issuer} could not be fetched`, {
      cause: error,
    });
  }
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported ||
    error instanceof errors.JWKInvalid
  ) {
    return invalid("The token is not a valid signed JWT");
  }
  return invalid("The token could not be verified");
}
