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

const TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 0.001, n: 0.000_001 };

/**
 * The milliseconds a `grpc-timeout` header grants (1 to 8 digits and a unit: hours, minutes, seconds, milli-,
 * micro- or nanoseconds), or undefined when the value is not one.
 */
export function parseGrpcTimeout(value: string): number | undefined {
  const match = TIMEOUT.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}
