import { Code, TrestleError } from "@trestle/core";
import { REQUEST_ID_METADATA_KEY } from "@trestle/wanaku";

/** An HTTP field name (RFC 9110 §5.6.2 token), lower-cased. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** What no HTTP field value may hold (RFC 9110 §5.5): NUL, CR, LF. */
const FORBIDDEN_VALUE = /[\0\r\n]/;
/** Leading and trailing HTTP whitespace, which a field value does not keep (as `Headers` trims it). */
const OUTER_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** Fields HTTP/2 forbids (RFC 9113 §8.2.2): Node refuses a request that carries one. */
const CONNECTION_FIELDS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

function refuse(cause?: unknown): TrestleError {
  // The message names no value: metadata may carry credentials.
  return new TrestleError(
    "Call metadata holds a key or value that is not a valid header",
    Code.InvalidArgument,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * A call's metadata and request id as request headers (lower-cased keys, values trimmed as `Headers` trims them),
 * checked as HTTP/2 would check them, without building a `Headers` object per call.
 * @throws TrestleError `InvalidArgument` for a key or value that cannot be a header; the message quotes neither.
 */
export function requestHeadersFor(
  metadata: Readonly<Record<string, string>> | undefined,
  requestId: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (metadata) {
    for (const key in metadata) {
      const value = metadata[key];
      if (value === undefined) continue;
      const name = key.toLowerCase();
      if (!TOKEN.test(name) || CONNECTION_FIELDS.has(name)) throw refuse();
      if (name === "te" && value !== "trailers") throw refuse();
      if (typeof value !== "string" || FORBIDDEN_VALUE.test(value)) throw refuse();
      headers[name] = value.replace(OUTER_WHITESPACE, "");
    }
  }
  if (requestId) {
    if (FORBIDDEN_VALUE.test(requestId)) throw refuse();
    headers[REQUEST_ID_METADATA_KEY] = requestId.replace(OUTER_WHITESPACE, "");
  }
  return headers;
}
