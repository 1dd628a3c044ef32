import { ConnectError } from "@connectrpc/connect";
import { Code, codeFromNumber, TrestleError } from "@trestle/core";

/** Certificate verification failures as Node names them (`tls` docs, "X509 certificate error codes"). */
const CERTIFICATE_ERROR_CODES = new Set([
  "CERT_CHAIN_TOO_LONG",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REJECTED",
  "CERT_REVOKED",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "HOSTNAME_MISMATCH",
  "INVALID_CA",
  "INVALID_PURPOSE",
  "PATH_LENGTH_EXCEEDED",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
]);

/** Socket failures that connect-node reports as ABORTED or INTERNAL although nothing was aborted on purpose. */
const DROPPED_CONNECTION_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/**
 * True when the connection itself failed somewhere in the error's chain of causes: a TLS handshake refused
 * (untrusted certificate, client certificate missing) or the socket dropped by the other side.
 */
function isConnectionFailure(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code !== "string") continue;
    if (CERTIFICATE_ERROR_CODES.has(code) || DROPPED_CONNECTION_CODES.has(code)) return true;
    if (code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_")) return true;
  }
  return false;
}

/**
 * Turns whatever a Connect call threw into a {@link TrestleError}. Connect codes are the gRPC numbers, as
 * Trestle's are, so the code carries over unchanged: `UNAVAILABLE` (also connection refused, which connect-node
 * reports so), `DEADLINE_EXCEEDED`, `FAILED_PRECONDITION`, `INVALID_ARGUMENT`, `NOT_FOUND`, `UNIMPLEMENTED` and
 * the rest keep their meaning (contract §3), and the service's message becomes the error's raw message. `Canceled`
 * is kept for the caller's own cancellation: when the caller's signal aborted, the answer is `Canceled` whatever
 * the wire said, and a cancellation the caller did not ask for is `Unavailable`. A failed TLS handshake (untrusted
 * certificate, client certificate refused) or a connection reset is `Unavailable` too, with the reason as message.
 */
export function trestleErrorFrom(
  error: unknown,
  /** The caller's `AbortSignal` or core `Cancellation`: only whether it was cancelled is read. */
  caller?: { readonly aborted: boolean },
): TrestleError {
  if (error instanceof TrestleError) return error;
  if (caller?.aborted) {
    return new TrestleError("The call was cancelled by the caller", Code.Canceled, { cause: error });
  }
  // connect-node already turns Node's socket errors (ECONNREFUSED, …) into ConnectErrors with their code.
  const connectError = ConnectError.from(error);
  let code = codeFromNumber(connectError.code);
  // The caller did not cancel, so the other side or the network did (a reset stream, a refused TLS client):
  // for the router that is a service it cannot reach, not a cancellation it asked for.
  if (code === Code.Canceled) code = Code.Unavailable;
  // connect-node calls a refused handshake INTERNAL and a reset socket ABORTED; for the router both are a
  // service it cannot reach.
  const maybeConnection = code === Code.Internal || code === Code.Unknown || code === Code.Aborted;
  if (maybeConnection && isConnectionFailure(connectError)) code = Code.Unavailable;
  return new TrestleError(connectError.rawMessage, code, { cause: error });
}
