/** Characters `grpc-message` may carry as they are: printable ASCII except `%` (gRPC over HTTP/2, "Responses"). */
const PLAIN_MESSAGE = /^[\x20-\x24\x26-\x7e]*$/;

/**
 * A status message as `grpc-message` carries it: each byte of its UTF-8 form outside printable ASCII, and `%`,
 * percent-encoded. Clients decode it with `decodeURIComponent` or `decodeURI` (which decodes every escape this
 * produces but the reserved characters, none of which are escaped here).
 */
export function encodeGrpcMessage(message: string): string {
  if (PLAIN_MESSAGE.test(message)) return message;
  let encoded = "";
  for (const byte of Buffer.from(message, "utf8")) {
    encoded +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}

/**
 * A status message as sent, from what a client holds of `grpc-message`: its percent-encoding decoded, including
 * the `%XX` escapes grpc-js's `decodeURI` leaves (`%3A`, `%2F`, `%2C` and the like), so that a message reads as
 * sent (and the router's secret scrubber recognises a secret echoed in it). Text that is not valid
 * percent-encoding is kept as it is.
 */
export function decodeGrpcMessage(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
