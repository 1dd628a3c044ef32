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
 * so on). The status details become `rawMessage` untouched: for a service's own failure they are the text a
 * user reads. A status outside the known range becomes {@link Code.Unknown}.
 */
export function errorFromStatus(status: GrpcStatusLike): TrestleError {
  const code =
    typeof status.code === "number" && status.code >= Code.Canceled && status.code <= Code.Unauthenticated
      ? (status.code as Code)
      : Code.Unknown;
  const details = status.details || status.message || `The service answered with gRPC status ${status.code}`;
  return new TrestleError(details, code, { cause: status });
}
