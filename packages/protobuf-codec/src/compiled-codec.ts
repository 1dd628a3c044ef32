import { type DescMessage, fromBinary, type MessageShape, ScalarType, toBinary } from "@bufbuild/protobuf";
import {
  type AnyMessage,
  type Compile,
  type CompiledMessage,
  EDITION_PROTO3,
  type EncodeState,
  handOver,
  IMPLICIT,
  type Reader,
  UNWRAPPED_TYPES,
  Unsupported,
} from "./codec-model.js";
import { compileField } from "./field-compiler.js";
import { readBody, sizeBody, writeBody } from "./message-body.js";
import { scalarCodec } from "./scalar-codecs.js";

/**
 * The binary codec of one protobuf message type. Either compiled (specialised closures per field, built once
 * from the descriptor) or, for a descriptor with something the compiler does not handle, protobuf-es's own
 * reflective `toBinary` / `fromBinary`.
 */
export interface MessageCodec<Desc extends DescMessage = DescMessage> {
  /** The descriptor the codec was built for. */
  readonly desc: Desc;
  /** True when the codec was compiled; false when every call goes through `toBinary` / `fromBinary`. */
  readonly compiled: boolean;
  /** Why the descriptor was not compiled (the first unsupported thing met); undefined when it was. */
  readonly fallbackReason: string | undefined;
  /**
   * The message's binary encoding: bytes that `fromBinary` decodes to an equal message. A compiled codec
   * writes fields in field-number order and map entries in the map object's key order, as `toBinary` does,
   * so the bytes are the same as `toBinary`'s. A message this codec cannot check (a value of the wrong type,
   * unknown fields in `$unknown`) is handed to `toBinary`, so it is encoded, or refused, exactly as there.
   * @throws Error what `toBinary` throws for a message it cannot encode.
   */
  encode(message: MessageShape<Desc>): Buffer;
  /**
   * The message as a gRPC length-prefixed message: a 0 flag byte (not compressed), the length as 4 bytes big
   * endian, then {@link MessageCodec.encode}'s bytes, in one buffer (no copy on a compiled codec).
   */
  encodeFramed(message: MessageShape<Desc>): Buffer;
  /**
   * Decodes `bytes` to the message `fromBinary(desc, bytes)` returns (same `$typeName`, zero values, map and
   * array shapes, `$unknown`). Input the compiled reader does not expect — an unknown field, a wrong wire
   * type, a truncated or over-long value, a message field seen twice — is handed to `fromBinary` whole, so
   * the outcome is fromBinary's: the same message, or the same error.
   * @throws Error what `fromBinary` throws for malformed bytes.
   */
  decode(bytes: Uint8Array): MessageShape<Desc>;
}

// ---------------------------------------------------------------------------------------------------------
// Messages

/** Builds the zero message of a proto3 descriptor, as protobuf-es's `create` does. */
function zeroFactory(desc: DescMessage): () => AnyMessage {
  const typeName = desc.typeName;
  const implicit: { name: string; zero: () => unknown }[] = [];
  for (const field of desc.fields) {
    if (field.presence !== IMPLICIT) continue;
    switch (field.fieldKind) {
      case "list":
        implicit.push({ name: field.localName, zero: () => [] });
        break;
      case "map":
        implicit.push({ name: field.localName, zero: () => ({}) });
        break;
      case "enum": {
        const first = field.enum.values[0]?.number ?? 0;
        implicit.push({ name: field.localName, zero: () => first });
        break;
      }
      case "scalar": {
        const zero = scalarCodec(field.scalar, false, field.name).zero;
        implicit.push({
          name: field.localName,
          zero: field.scalar === ScalarType.BYTES ? () => new Uint8Array(0) : () => zero,
        });
        break;
      }
    }
  }
  return () => {
    const message: AnyMessage = { $typeName: typeName };
    for (let i = 0; i < implicit.length; i++) {
      const member = implicit[i] as { name: string; zero: () => unknown };
      message[member.name] = member.zero();
    }
    return message;
  };
}

function compileMessage(root: DescMessage): CompiledMessage {
  const done = new Map<DescMessage, CompiledMessage>();
  const compile: Compile = (desc, where) => {
    const existing = done.get(desc);
    if (existing) {
      // A type that contains itself: the compiled code has no recursion limit, fromBinary has one.
      if (existing.fields.length === 0 && desc.fields.length > 0) {
        throw new Unsupported(`${where}: recursive message ${desc.typeName}`);
      }
      return existing;
    }
    if (desc.file.edition !== EDITION_PROTO3) {
      throw new Unsupported(`${desc.typeName}: edition ${desc.file.edition} (only proto3 is compiled)`);
    }
    if (UNWRAPPED_TYPES.has(desc.typeName)) {
      throw new Unsupported(`${where}: ${desc.typeName} is not represented as a message`);
    }
    if (desc.oneofs.length > 0) throw new Unsupported(`${desc.typeName}: oneof`);
    const compiled: CompiledMessage = {
      typeName: desc.typeName,
      fields: [],
      decoders: [],
      zero: zeroFactory(desc),
    };
    done.set(desc, compiled);
    // Fields in field-number order, as toBinary writes them.
    const fields = [...desc.fields].sort((a, b) => a.number - b.number);
    compiled.fields = fields.map((field) => compileField(field, compiled, compile));
    return compiled;
  };
  return compile(root, root.typeName);
}

function frame(message: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(5 + message.byteLength);
  framed[0] = 0;
  framed.writeUInt32BE(message.byteLength, 1);
  framed.set(message, 5);
  return framed;
}

/** A Buffer over the same memory as `bytes` (no copy). */
function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function reflectiveCodec<Desc extends DescMessage>(desc: Desc, reason: string): MessageCodec<Desc> {
  return {
    desc,
    compiled: false,
    fallbackReason: reason,
    encode: (message) => bufferView(toBinary(desc, message)),
    encodeFramed: (message) => frame(toBinary(desc, message)),
    decode: (bytes) => fromBinary(desc, bytes),
  };
}

/** Options of {@link compileMessageCodec}. */
export interface MessageCodecOptions {
  /**
   * Called when a compiled codec hands one message to protobuf-es (a value it cannot check on encode, input it
   * does not expect on decode): for tests and counters.
   */
  onHandOver?: (direction: "encode" | "decode") => void;
}

/**
 * Compiles the binary codec of a message type generated by protoc-gen-es: once per descriptor, specialised
 * closures per field. Compiled: proto3 messages whose fields are strings, bytes, bools, varint integers
 * (int32, uint32, sint32, int64, uint64, sint64 as bigint), open enums, `optional` scalars, repeated scalars
 * and messages, maps with string keys and scalar, enum or message values, and nested messages that are
 * themselves compilable. Anything else — oneofs, groups, fixed-width and floating-point numbers, wrapper
 * types, 64-bit integers as strings, closed enums, other editions, recursive types — makes the whole message
 * type use protobuf-es's `toBinary` / `fromBinary` (see {@link MessageCodec.fallbackReason}).
 *
 * @example
 * const codec = compileMessageCodec(ToolInvokeRequestSchema);
 * const bytes = codec.encode(create(ToolInvokeRequestSchema, { uri: "tool://x" }));
 * const again = codec.decode(bytes); // equals(ToolInvokeRequestSchema, again, fromBinary(...)) holds
 */
export function compileMessageCodec<Desc extends DescMessage>(
  desc: Desc,
  options: MessageCodecOptions = {},
): MessageCodec<Desc> {
  const { onHandOver } = options;
  let compiled: CompiledMessage;
  try {
    compiled = compileMessage(desc);
  } catch (error) {
    if (error instanceof Unsupported) return reflectiveCodec(desc, error.message);
    throw error;
  }
  const encodeWith = (message: MessageShape<Desc>, prefix: number): Buffer | undefined => {
    const state: EncodeState = { lengths: [], next: 0 };
    let size: number;
    try {
      size = sizeBody(compiled, message, state);
    } catch (error) {
      if (error === handOver) return undefined;
      throw error;
    }
    const out = Buffer.allocUnsafe(prefix + size);
    const end = writeBody(compiled, message as unknown as AnyMessage, out, prefix, state);
    if (end !== prefix + size) throw new Error(`compiled codec of ${desc.typeName}: size mismatch`);
    return out;
  };
  return {
    desc,
    compiled: true,
    fallbackReason: undefined,
    encode(message) {
      const out = encodeWith(message, 0);
      if (out !== undefined) return out;
      onHandOver?.("encode");
      return bufferView(toBinary(desc, message));
    },
    encodeFramed(message) {
      const out = encodeWith(message, 5);
      if (out === undefined) {
        onHandOver?.("encode");
        return frame(toBinary(desc, message));
      }
      out[0] = 0;
      out.writeUInt32BE(out.length - 5, 1);
      return out;
    },
    decode(bytes) {
      const reader: Reader = { buf: bytes, pos: 0, view: bufferView(bytes) };
      try {
        return readBody(compiled, reader, bytes.length) as MessageShape<Desc>;
      } catch {
        onHandOver?.("decode");
        // Input the compiled reader does not take (or refuses, like invalid UTF-8): fromBinary decides,
        // so the outcome (a message, or its error) is exactly fromBinary's.
        return fromBinary(desc, bytes);
      }
    },
  };
}
