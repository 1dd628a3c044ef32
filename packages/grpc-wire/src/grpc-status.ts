import { Code, codeFromNumber, TrestleError } from "@trestle/core";
import { decodeGrpcMessage } from "./grpc-message.js";

/** The part of a gRPC status (a grpc-js `ServiceError` or status object, or the lean client's) the mapping reads. */
export interface GrpcStatusLike {
  code?: number;
  details?: string;
  message?: string;
}

/**
 * The {@link TrestleError} a gRPC status means. gRPC status codes and core's {@link Code} are equal number
 * for number (the contract's §3 table is then the meaning of each code, applied above the transport:
 * `UNAVAILABLE` and `DEADLINE_EXCEEDED` make a service unavailable, `FAILED_PRECONDITION` is transient, and
 * so on). The status details become `rawMessage`: for a service's own failure they are the text a user reads.
 * Servers percent-encode `grpc-message` and grpc-js decodes it with `decodeURI`, which leaves `%3A`, `%2F`, `%2C`
 * and the like encoded; {@link decodeGrpcMessage} decodes them, so that messages read as sent (and the router's
 * secret scrubber recognises a secret echoed in them). A status outside the known range becomes
 * {@link Code.Unknown}.
 */
export function errorFromGrpcStatus(status: GrpcStatusLike): TrestleError {
  const code = typeof status.code === "number" ? codeFromNumber(status.code) : Code.Unknown;
  const details = status.details || status.message || `The service answered with gRPC status ${status.code}`;
  return new TrestleError(decodeGrpcMessage(details), code, { cause: status });
}

/** The gRPC code an HTTP status without a gRPC status means (gRPC's HTTP-to-gRPC status mapping). */
export function codeFromHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}
