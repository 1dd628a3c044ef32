import { ConnectError } from "@connectrpc/connect";
import { Code, TrestleError } from "@trestle/core";

/**
 * Turns whatever a Connect call threw into a {@link TrestleError}. Connect codes are the gRPC numbers, as
 * Trestle's are, so the code carries over unchanged: `UNAVAILABLE` (also connection refused, which connect-node
 * reports so), `DEADLINE_EXCEEDED`, `FAILED_PRECONDITION`, `INVALID_ARGUMENT`, `NOT_FOUND`, `UNIMPLEMENTED` and
 * the rest keep their meaning (contract §3), and the service's message becomes the error's raw message. When the
 * caller's own signal aborted, the answer is `Canceled` whatever the wire said.
 */
export function trestleErrorFrom(error: unknown, callerSignal?: AbortSignal): TrestleError {
  if (error instanceof TrestleError) return error;
  if (callerSignal?.aborted) {
    return new TrestleError("The call was cancelled by the caller", Code.Canceled, { cause: error });
  }
  // connect-node already turns Node's socket errors (ECONNREFUSED, …) into ConnectErrors with their code.
  const connectError = ConnectError.from(error);
  const code = (connectError.code as number) in Code ? (connectError.code as number as Code) : Code.Unknown;
  return new TrestleError(connectError.rawMessage, code, { cause: error });
}
