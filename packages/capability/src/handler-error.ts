import type { OutgoingHttpHeaders } from "node:http2";
import { ConnectError } from "@connectrpc/connect";
import { Code, TrestleError } from "@trestle/core";
import {
  type GrpcStatus,
  isBinaryMetadataKey,
  isGrpcMetadataKey,
  isGrpcTextMetadataValue,
  isReservedTrailerKey,
} from "@trestle/grpc-wire";

/**
 * The code and raw message a failure that is not a `ConnectError` answers with. A `TrestleError` keeps its code
 * (Trestle codes and Connect codes are both the gRPC numbers) and its raw message; anything else answers `INTERNAL`
 * with its message, so the caller sees the real reason rather than "unknown".
 */
function failureStatus(error: unknown): { code: number; message: string } {
  if (error instanceof TrestleError) return { code: error.code as number, message: error.rawMessage };
  if (error instanceof Error) return { code: Code.Internal as number, message: error.message };
  return { code: Code.Internal as number, message: String(error) };
}

/**
 * The status a handler's failure answers with, as a `ConnectError`: one it threw (or the server made, for a
 * deadline or a cancellation) passes unchanged, anything else as {@link failureStatus} says.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  const { code, message } = failureStatus(error);
  return new ConnectError(message, code);
}

/** The trailers a `ConnectError`'s metadata asks for; entries gRPC metadata cannot hold are left out. */
function trailersOf(error: ConnectError): OutgoingHttpHeaders | undefined {
  let trailers: OutgoingHttpHeaders | undefined;
  error.metadata.forEach((value, key) => {
    // A header Connect would send but gRPC metadata cannot hold (a reserved name, a value out of range):
    // not ours to fail on.
    if (!isGrpcMetadataKey(key) || isReservedTrailerKey(key)) return;
    if (!isBinaryMetadataKey(key) && !isGrpcTextMetadataValue(value)) return;
    trailers ??= {};
    trailers[key] = value;
  });
  return trailers;
}

/**
 * The same status as {@link toConnectError}, in the shape the gRPC server answers a call with: code, raw message
 * (percent-encoded on the wire) and, for a thrown `ConnectError`, its metadata as trailers (`-bin` values as the
 * base64 text Connect holds them in). No `ConnectError` is made for another failure: one builds a `Headers`, and
 * the first `Headers` of a process loads undici (about 5.5 MiB resident).
 */
export function toGrpcStatus(error: unknown): GrpcStatus {
  if (error instanceof ConnectError) {
    const status: GrpcStatus = { code: error.code as number, message: error.rawMessage };
    const trailers = trailersOf(error);
    if (trailers) status.trailers = trailers;
    return status;
  }
  return failureStatus(error);
}
