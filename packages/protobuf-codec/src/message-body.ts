/**
 * A compiled message's body on the wire: its size and its bytes (its fields in order), nested with a length
 * prefix, and read back field by field.
 */
import {
  type AnyMessage,
  type CompiledMessage,
  type EncodeState,
  type FieldCodec,
  handOver,
  type Reader,
} from "./codec-model.js";
import { readTag, varint32Size, writeVarint32 } from "./wire-primitives.js";

/** The size of a message's body. @throws HandOver for a message this codec cannot check (wrong type, `$unknown`). */
export function sizeBody(compiled: CompiledMessage, message: unknown, state: EncodeState): number {
  const m = message as AnyMessage;
  if (typeof message !== "object" || message === null || m.$typeName !== compiled.typeName) throw handOver;
  // Unknown fields are written back by toBinary; leave such a message to it.
  const unknown = m.$unknown as unknown[] | undefined;
  if (unknown !== undefined && unknown.length > 0) throw handOver;
  let size = 0;
  const fields = compiled.fields;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as FieldCodec;
    size += field.size(m[field.localName], state);
  }
  return size;
}

/** Writes a message's body at `pos` (after {@link sizeBody} measured it); returns the position after it. */
export function writeBody(
  compiled: CompiledMessage,
  message: AnyMessage,
  out: Buffer,
  pos: number,
  state: EncodeState,
) {
  const fields = compiled.fields;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as FieldCodec;
    pos = field.write(message[field.localName], out, pos, state);
  }
  return pos;
}

/** Size of a nested message with its length prefix (the length is kept for the writing pass). */
export function sizeDelimited(compiled: CompiledMessage, message: unknown, state: EncodeState): number {
  const slot = state.lengths.length;
  state.lengths.push(0);
  const body = sizeBody(compiled, message, state);
  state.lengths[slot] = body;
  return varint32Size(body) + body;
}

/** Writes a nested message with its length prefix (the length measured by {@link sizeDelimited}). */
export function writeDelimited(
  compiled: CompiledMessage,
  message: AnyMessage,
  out: Buffer,
  pos: number,
  state: EncodeState,
): number {
  pos = writeVarint32(out, pos, state.lengths[state.next++] as number);
  return writeBody(compiled, message, out, pos, state);
}

/** Reads a message's body up to `end`. @throws HandOver for input the compiled reader does not expect. */
export function readBody(compiled: CompiledMessage, r: Reader, end: number): AnyMessage {
  const message = compiled.zero();
  const decoders = compiled.decoders;
  while (r.pos < end) {
    const tag = readTag(r);
    const decoder = decoders[tag];
    // An unknown field (kept in $unknown by fromBinary), a wrong wire type or an illegal tag.
    if (decoder === undefined) throw handOver;
    decoder(r, message);
  }
  if (r.pos !== end) throw handOver;
  return message;
}
