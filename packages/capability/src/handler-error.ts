import { ConnectError } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { Code, TrestleError } from "@trestle/core";

/**
 * The status a handler's failure answers with. A `TrestleError` keeps its code (Trestle codes and Connect codes
 * are both the gRPC numbers) and its raw message; a `ConnectError` (a deadline or cancellation noticed by the
 * server itself) passes unchanged; anything else answers `INTERNAL` with its message, so the caller sees the
 * real reason rather than "unknown".
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof TrestleError) return new ConnectError(error.rawMessage, error.code as number);
  if (error instanceof Error) return new ConnectError(error.message, Code.Internal as number);
  return new ConnectError(String(error), Code.Internal as number);
}

/** The trailers a `ConnectError`'s metadata asks for, as grpc-js metadata; entries grpc-js refuses are left out. */
function trailersOf(error: ConnectError): grpc.Metadata | undefined {
  let trailers: grpc.Metadata | undefined;
  error.metadata.forEach((value, key) => {
    trailers ??= new grpc.Metadata();
    try {
      if (key.endsWith("-bin")) trailers.add(key, Buffer.from(value, "base64"));
      else trailers.add(key, value);
    } catch {
      // A header Connect would send but gRPC metadata cannot hold (e.g. a reserved name): not ours to fail on.
    }
  });
  return trailers;
}

/**
 * The same status as {@link toConnectError}, in the shape grpc-js answers a call with: code, message (grpc-js
 * percent-encodes it on the wire) and, for a thrown `ConnectError`, its metadata as trailers. A plain object, not an
 * `Error`: nothing reads its stack.
 */
export function toGrpcStatus(error: unknown): grpc.ServerErrorResponse {
  const failure = toConnectError(error);
  const status: grpc.ServerErrorResponse = {
    name: "ConnectError",
    message: failure.rawMessage,
    code: failure.code as number,
    details: failure.rawMessage,
  };
  const trailers = error instanceof ConnectError ? trailersOf(error) : undefined;
  if (trailers) status.metadata = trailers;
  return status;
}
