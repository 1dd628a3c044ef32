// gRPC's rules for metadata, as grpc-js applies them, minus ":": grpc-js accepts a pseudo-header key and silently
// does not send it, and a colon inside a key fails in Node's HTTP/2 layer; a caller is better told at once.
const METADATA_KEY = /^[0-9a-z_.-]+$/;
const TEXT_VALUE = /^[ -~]*$/;

/** True for a key gRPC metadata may have: lower-case letters, digits, `_`, `.` and `-`. */
export function isGrpcMetadataKey(key: string): boolean {
  return METADATA_KEY.test(key);
}

/** True for a value a text (not `-bin`) metadata entry may have: printable ASCII. */
export function isGrpcTextMetadataValue(value: string): boolean {
  return TEXT_VALUE.test(value);
}

/** True for a binary metadata key (`-bin`): its value is any bytes, base64-encoded on the wire. */
export function isBinaryMetadataKey(key: string): boolean {
  return key.endsWith("-bin");
}

/**
 * True for a key a server's own trailers must not set: the status itself, the HTTP framing, and the
 * connection-specific headers HTTP/2 forbids (Node refuses to send them).
 */
export function isReservedTrailerKey(key: string): boolean {
  return (
    key === "grpc-status" ||
    key === "grpc-message" ||
    key === "content-type" ||
    key === "te" ||
    key === "connection" ||
    key === "keep-alive" ||
    key === "proxy-connection" ||
    key === "transfer-encoding" ||
    key === "upgrade"
  );
}
