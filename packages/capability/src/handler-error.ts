import { ConnectError } from "@connectrpc/connect";
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
