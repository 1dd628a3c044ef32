import { Code, TrestleError } from "@trestle/core";

/** The part of a grpc-js `ServiceError` (or status object) the mapping reads. */
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
 * and the like encoded; they are decoded here, so that messages read as sent (and the router's secret scrubber
 * recognises a secret echoed in them). A status outside the known range becomes {@link Code.Unknown}.
 */
export function errorFromStatus(status: GrpcStatusLike): TrestleError {
  const code =
    typeof status.code === "number" && status.code >= Code.Canceled && status.code <= Code.Unauthenticated
      ? (status.code as Code)
      : Code.Unknown;
  const details = status.details || status.message || `The service answered with gRPC status ${status.code}`;
  return new TrestleError(decodeRemainingEscapes(details), code, { cause: status });
}

/** Decodes the `%XX` escapes `decodeURI` leaves; text that is not valid percent-encoding is kept as it is. */
function decodeRemainingEscapes(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
