import { Code, TrestleError } from "@trestle/core";

/**
 * gRPC's length-prefixed messages: a flag byte (0: not compressed, 1: compressed), the message's length as a
 * 32-bit big-endian number, then the message. `@trestle/protobuf-codec`'s `encodeFramed` writes the same bytes
 * in place, with the message, so that the hot path copies nothing; a test of this package holds the two equal.
 */
export const FRAME_HEADER_BYTES = 5;

/** One message behind its frame header (not compressed), in a new buffer. */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + message.byteLength);
  frame[0] = 0;
  frame.writeUInt32BE(message.byteLength, 1);
  frame.set(message, FRAME_HEADER_BYTES);
  return frame;
}

/**
 * The one message of a unary reply's whole body (a view, not a copy).
 * @throws TrestleError `Internal` for a body without a whole message, or a compressed one (none is asked for).
 */
export function unaryReplyMessage(body: Buffer): Buffer {
  if (body.length < 5) throw new TrestleError("The service sent no reply", Code.Internal);
  if (body[0] !== 0) {
    throw new TrestleError("The service sent a compressed reply, which was not asked for", Code.Internal);
  }
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new TrestleError("The service's reply was cut short", Code.Internal);
  return body.subarray(5, 5 + length);
}

/**
 * Reads the whole messages at the front of a stream's received bytes, in order, handing each to `onMessage` (a
 * view, not a copy), and returns the bytes left (the start of the next message).
 * @throws TrestleError `Internal` for a compressed message (none is asked for); `ResourceExhausted` for one whose
 *   header announces more than `maxMessageBytes` (thrown before it is received); whatever `onMessage` throws.
 */
export function takeReplyMessages(
  pending: Buffer,
  maxMessageBytes: number,
  onMessage: (message: Buffer) => void,
): Buffer {
  let rest = pending;
  while (rest.length >= 5) {
    if (rest[0] !== 0) {
      throw new TrestleError("The service sent a compressed reply, which was not asked for", Code.Internal);
    }
    const length = rest.readUInt32BE(1);
    if (length > maxMessageBytes) {
      throw new TrestleError(
        `Received message larger than max (${length} vs. ${maxMessageBytes})`,
        Code.ResourceExhausted,
      );
    }
    if (rest.length < 5 + length) break;
    onMessage(rest.subarray(5, 5 + length));
    rest = rest.subarray(5 + length);
  }
  return rest;
}
