import {
  type DescField,
  type DescMessage,
  fromBinary,
  type MessageShape,
  protoInt64,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import { getTextEncoding } from "@bufbuild/protobuf/wire";

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

// Editions numbers from google.protobuf.Edition, and FieldPresence.IMPLICIT (as protobuf-es uses them).
const EDITION_PROTO3 = 999;
const IMPLICIT = 2;

// Wire types.
const VARINT = 0;
const LENGTH_DELIMITED = 2;

/** Types protobuf-es represents as something other than a message when they are a field's type. */
const UNWRAPPED_TYPES = new Set([
  "google.protobuf.DoubleValue",
  "google.protobuf.FloatValue",
  "google.protobuf.Int64Value",
  "google.protobuf.UInt64Value",
  "google.protobuf.Int32Value",
  "google.protobuf.UInt32Value",
  "google.protobuf.BoolValue",
  "google.protobuf.StringValue",
  "google.protobuf.BytesValue",
  "google.protobuf.Struct",
  "google.protobuf.Value",
  "google.protobuf.ListValue",
]);

/** Thrown inside the compiled code to hand the whole message to protobuf-es; never escapes the codec. */
class HandOver extends Error {}
const handOver = new HandOver("hand over to protobuf-es");

/** Thrown while compiling: the descriptor has something the compiler does not handle. */
class Unsupported extends Error {}

/** Byte lengths measured by the sizing pass, read back in the same order by the writing pass. */
interface EncodeState {
  lengths: number[];
  next: number;
}

/** The decoder's position in the input. */
interface Reader {
  buf: Uint8Array;
  pos: number;
  /** The input as a Buffer view (no copy), for native UTF-8 slicing. */
  view: Buffer;
}

type AnyMessage = Record<string, unknown> & { $typeName: string };

/** One field of a compiled message. */
interface FieldCodec {
  readonly localName: string;
  /** Encoded size of the field (tag included); 0 when not set. @throws HandOver */
  size(value: unknown, state: EncodeState): number;
  /** Writes the field when set, at `pos`; returns the position after it. */
  write(value: unknown, out: Buffer, pos: number, state: EncodeState): number;
}

/** A value decoder for one wire type: reads one value and stores it on the message. */
type FieldDecoder = (reader: Reader, message: AnyMessage) => void;

/** A compiled message: sizing, writing and reading of its body. */
interface CompiledMessage {
  readonly typeName: string;
  fields: FieldCodec[];
  /** Decoders indexed by the full tag (field number << 3 | wire type). */
  decoders: (FieldDecoder | undefined)[];
  zero: () => AnyMessage;
}

// ---------------------------------------------------------------------------------------------------------
// Varints and UTF-8

function varint32Size(value: number): number {
  if (value < 0) return 10;
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** Writes an unsigned 32-bit value (or a negative int32, sign-extended to 10 bytes as protobuf does). */
function writeVarint32(out: Buffer, pos: number, value: number): number {
  if (value < 0) return writeVarint64(out, pos, value | 0, -1);
  let v = value >>> 0;
  while (v > 0x7f) {
    out[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[pos++] = v;
  return pos;
}

function varint64Size(lo: number, hi: number): number {
  if (hi === 0) return varint32Size(lo >>> 0);
  const h = hi >>> 0;
  if (h < 0x8) return 5;
  if (h < 0x400) return 6;
  if (h < 0x20000) return 7;
  if (h < 0x1000000) return 8;
  if (h < 0x80000000) return 9;
  return 10;
}

function writeVarint64(out: Buffer, pos: number, lo: number, hi: number): number {
  let l = lo >>> 0;
  let h = hi >>> 0;
  while (h > 0 || l > 0x7f) {
    out[pos++] = (l & 0x7f) | 0x80;
    l = ((l >>> 7) | (h << 25)) >>> 0;
    h >>>= 7;
  }
  out[pos++] = l;
  return pos;
}

/** Reads a varint as protobuf-es's `uint32()` does; hands over where that would throw. */
function readVarint32(r: Reader): number {
  const buf = r.buf;
  let pos = r.pos;
  let b = buf[pos++] as number;
  let result = b & 0x7f;
  if (b < 0x80) {
    if (pos > buf.length) throw handOver;
    r.pos = pos;
    return result;
  }
  for (let shift = 7; shift < 28; shift += 7) {
    b = buf[pos++] as number;
    result |= (b & 0x7f) << shift;
    if (b < 0x80) {
      if (pos > buf.length) throw handOver;
      r.pos = pos;
      return result;
    }
  }
  b = buf[pos++] as number;
  result |= (b & 0x0f) << 28;
  for (let read = 5; (b & 0x80) !== 0 && read < 10; read++) b = buf[pos++] as number;
  if ((b & 0x80) !== 0 || pos > buf.length) throw handOver;
  r.pos = pos;
  return result >>> 0;
}

/** Reads a tag; hands over a tag protobuf-es refuses (longer than 5 bytes or over 32 bits). */
function readTag(r: Reader): number {
  const start = r.pos;
  const tag = readVarint32(r);
  const read = r.pos - start;
  if (read > 5 || (read === 5 && (r.buf[r.pos - 1] as number) > 0x0f)) throw handOver;
  return tag;
}

/** Reads a 64-bit varint as two 32-bit halves, as protobuf-es does; hands over where that would throw. */
function readVarint64(r: Reader): [number, number] {
  const buf = r.buf;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    const b = buf[pos++] as number;
    lo |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      if (pos > buf.length) throw handOver;
      r.pos = pos;
      return [lo, hi];
    }
  }
  const middle = buf[pos++] as number;
  lo |= (middle & 0x0f) << 28;
  hi = (middle & 0x70) >> 4;
  if ((middle & 0x80) === 0) {
    if (pos > buf.length) throw handOver;
    r.pos = pos;
    return [lo, hi];
  }
  for (let shift = 3; shift <= 31; shift += 7) {
    const b = buf[pos++] as number;
    hi |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      if (pos > buf.length) throw handOver;
      r.pos = pos;
      return [lo, hi];
    }
  }
  throw handOver;
}

/** Strings longer than this are measured and written by Node's native UTF-8 code. */
const NATIVE_STRING_LENGTH = 64;

/** UTF-8 length of a string as TextEncoder encodes it (a lone surrogate becomes U+FFFD, 3 bytes). */
function utf8Length(text: string): number {
  const n = text.length;
  if (n > NATIVE_STRING_LENGTH) return Buffer.byteLength(text, "utf8");
  let length = n;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      length += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        length += 2;
        i++;
      } else {
        length += 2;
      }
    } else {
      length += 2;
    }
  }
  return length;
}

/** Writes `text` (whose UTF-8 length is `length`) at `pos`, as TextEncoder encodes it. */
function writeUtf8(out: Buffer, pos: number, text: string, length: number): number {
  const n = text.length;
  if (n > NATIVE_STRING_LENGTH) {
    out.write(text, pos, length, "utf8");
    return pos + length;
  }
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[pos++] = c;
    } else if (c < 0x800) {
      out[pos++] = 0xc0 | (c >> 6);
      out[pos++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          const point = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          out[pos++] = 0xf0 | (point >> 18);
          out[pos++] = 0x80 | ((point >> 12) & 0x3f);
          out[pos++] = 0x80 | ((point >> 6) & 0x3f);
          out[pos++] = 0x80 | (point & 0x3f);
          i++;
          continue;
        }
        c = 0xfffd;
      }
      out[pos++] = 0xe0 | (c >> 12);
      out[pos++] = 0x80 | ((c >> 6) & 0x3f);
      out[pos++] = 0x80 | (c & 0x3f);
    }
  }
  return pos;
}

const decodeUtf8 = (bytes: Uint8Array, strict: boolean): string =>
  getTextEncoding().decodeUtf8(bytes, strict);

/**
 * Reads a length-delimited string with the outcome of protobuf-es's decoder (TextDecoder). Node's native
 * UTF-8 slicing gives the same string for valid UTF-8 and puts U+FFFD where the input is invalid; a result
 * holding U+FFFD (invalid input, or a U+FFFD really sent) or starting with a BOM (which TextDecoder drops) is
 * decoded again by protobuf-es's own decoder, so invalid UTF-8 is refused (or replaced) exactly as there.
 */
function readString(r: Reader, strict: boolean): string {
  const length = readVarint32(r);
  const start = r.pos;
  const end = start + length;
  const buf = r.buf;
  if (end > buf.length) throw handOver;
  r.pos = end;
  if (length < 8) {
    let text = "";
    for (let i = start; i < end; i++) {
      const c = buf[i] as number;
      if (c >= 0x80) return decodeUtf8(buf.subarray(start, end), strict);
      text += String.fromCharCode(c);
    }
    return text;
  }
  const text = r.view.toString("utf8", start, end);
  if (text.charCodeAt(0) !== 0xfeff && text.indexOf("\ufffd") === -1) return text;
  return decodeUtf8(buf.subarray(start, end), strict);
}

function readBytes(r: Reader): Uint8Array {
  const length = readVarint32(r);
  const start = r.pos;
  const end = start + length;
  if (end > r.buf.length) throw handOver;
  r.pos = end;
  // fromBinary returns a view on the input too.
  return r.buf.subarray(start, end);
}

// ---------------------------------------------------------------------------------------------------------
// Scalars

/** How one scalar type is checked, sized, written and read. */
interface ScalarCodec {
  wireType: number;
  /** Is this the zero value (an implicit-presence field holding it is not written)? */
  isZero(value: unknown): boolean;
  /** Size of the value alone; hands over for a value of the wrong type. */
  size(value: unknown, state: EncodeState): number;
  write(value: unknown, out: Buffer, pos: number, state: EncodeState): number;
  read(r: Reader): unknown;
  zero: unknown;
}

function isInt32(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff;
}
function isUint32(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** The two 32-bit halves of a 64-bit value, or a hand over when it is not a bigint in range. */
function int64Halves(value: unknown, unsigned: boolean): { lo: number; hi: number } {
  if (typeof value !== "bigint") throw handOver;
  if (unsigned ? value < 0n || value > UINT64_MAX : value < INT64_MIN || value > INT64_MAX) throw handOver;
  return unsigned ? protoInt64.uEnc(value) : protoInt64.enc(value);
}

function stringCodec(strict: boolean): ScalarCodec {
  return {
    wireType: LENGTH_DELIMITED,
    isZero: (value) => value === "",
    size(value, state) {
      if (typeof value !== "string") throw handOver;
      const length = utf8Length(value);
      state.lengths.push(length);
      return varint32Size(length) + length;
    },
    write(value, out, pos, state) {
      const length = state.lengths[state.next++] as number;
      return writeUtf8(out, writeVarint32(out, pos, length), value as string, length);
    },
    read: (r) => readString(r, strict),
    zero: "",
  };
}

const bytesCodec: ScalarCodec = {
  wireType: LENGTH_DELIMITED,
  isZero: (value) => value instanceof Uint8Array && value.byteLength === 0,
  size(value) {
    if (!(value instanceof Uint8Array)) throw handOver;
    return varint32Size(value.byteLength) + value.byteLength;
  },
  write(value, out, pos) {
    const bytes = value as Uint8Array;
    pos = writeVarint32(out, pos, bytes.byteLength);
    out.set(bytes, pos);
    return pos + bytes.byteLength;
  },
  read: readBytes,
  zero: new Uint8Array(0),
};

const boolCodec: ScalarCodec = {
  wireType: VARINT,
  isZero: (value) => value === false,
  size(value) {
    if (typeof value !== "boolean") throw handOver;
    return 1;
  },
  write(value, out, pos) {
    out[pos] = value ? 1 : 0;
    return pos + 1;
  },
  read(r) {
    const [lo, hi] = readVarint64(r);
    return lo !== 0 || hi !== 0;
  },
  zero: false,
};

const int32Codec: ScalarCodec = {
  wireType: VARINT,
  isZero: (value) => value === 0,
  size(value) {
    if (!isInt32(value)) throw handOver;
    return varint32Size(value);
  },
  write: (value, out, pos) => writeVarint32(out, pos, value as number),
  read: (r) => readVarint32(r) | 0,
  zero: 0,
};

const uint32Codec: ScalarCodec = {
  wireType: VARINT,
  isZero: (value) => value === 0,
  size(value) {
    if (!isUint32(value)) throw handOver;
    return varint32Size(value);
  },
  write: (value, out, pos) => writeVarint32(out, pos, value as number),
  read: readVarint32,
  zero: 0,
};

const sint32Codec: ScalarCodec = {
  wireType: VARINT,
  isZero: (value) => value === 0,
  size(value) {
    if (!isInt32(value)) throw handOver;
    return varint32Size(((value << 1) ^ (value >> 31)) >>> 0);
  },
  write: (value, out, pos) =>
    writeVarint32(out, pos, (((value as number) << 1) ^ ((value as number) >> 31)) >>> 0),
  read(r) {
    const zigzag = readVarint32(r);
    return (zigzag >>> 1) ^ -(zigzag & 1);
  },
  zero: 0,
};

function int64Codec(unsigned: boolean): ScalarCodec {
  return {
    wireType: VARINT,
    isZero: (value) => value === 0n,
    size(value) {
      const { lo, hi } = int64Halves(value, unsigned);
      return varint64Size(lo, hi);
    },
    write(value, out, pos) {
      const { lo, hi } = int64Halves(value, unsigned);
      return writeVarint64(out, pos, lo, hi);
    },
    read(r) {
      const [lo, hi] = readVarint64(r);
      return unsigned ? protoInt64.uDec(lo, hi) : protoInt64.dec(lo, hi);
    },
    zero: 0n,
  };
}

const sint64Codec: ScalarCodec = {
  wireType: VARINT,
  isZero: (value) => value === 0n,
  size(value) {
    const { lo, hi } = zigzag64(value);
    return varint64Size(lo, hi);
  },
  write(value, out, pos) {
    const { lo, hi } = zigzag64(value);
    return writeVarint64(out, pos, lo, hi);
  },
  read(r) {
    let [lo, hi] = readVarint64(r);
    const sign = -(lo & 1);
    lo = ((lo >>> 1) | ((hi & 1) << 31)) ^ sign;
    hi = (hi >>> 1) ^ sign;
    return protoInt64.dec(lo, hi);
  },
  zero: 0n,
};

function zigzag64(value: unknown): { lo: number; hi: number } {
  const { lo, hi } = int64Halves(value, false);
  const sign = hi >> 31;
  return { lo: ((lo << 1) ^ sign) >>> 0, hi: (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0 };
}

function scalarCodec(scalar: ScalarType, strict: boolean, where: string): ScalarCodec {
  switch (scalar) {
    case ScalarType.STRING:
      return stringCodec(strict);
    case ScalarType.BYTES:
      return bytesCodec;
    case ScalarType.BOOL:
      return boolCodec;
    case ScalarType.INT32:
      return int32Codec;
    case ScalarType.UINT32:
      return uint32Codec;
    case ScalarType.SINT32:
      return sint32Codec;
    case ScalarType.INT64:
      return int64Codec(false);
    case ScalarType.UINT64:
      return int64Codec(true);
    case ScalarType.SINT64:
      return sint64Codec;
    default:
      throw new Unsupported(`${where}: scalar type ${ScalarType[scalar]}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Fields

function tagBytes(fieldNo: number, wireType: number): number[] {
  const bytes: number[] = [];
  let tag = ((fieldNo << 3) | wireType) >>> 0;
  while (tag > 0x7f) {
    bytes.push((tag & 0x7f) | 0x80);
    tag >>>= 7;
  }
  bytes.push(tag);
  return bytes;
}

function writeTag(out: Buffer, pos: number, tag: number[]): number {
  for (let i = 0; i < tag.length; i++) out[pos++] = tag[i] as number;
  return pos;
}

function setDecoder(compiled: CompiledMessage, fieldNo: number, wireType: number, decoder: FieldDecoder) {
  compiled.decoders[((fieldNo << 3) | wireType) >>> 0] = decoder;
}

/** Reads the length of a length-delimited value and checks it fits in the input; returns its end. */
function readLengthEnd(r: Reader): number {
  const length = readVarint32(r);
  const end = r.pos + length;
  if (end > r.buf.length) throw handOver;
  return end;
}

function compileField(field: DescField, into: CompiledMessage, compile: Compile): FieldCodec {
  const where = `${field.parent.typeName}.${field.name}`;
  const name = field.localName;
  const number = field.number;
  if (field.oneof) throw new Unsupported(`${where}: oneof`);
  switch (field.fieldKind) {
    case "scalar":
    case "enum": {
      const scalar =
        field.fieldKind === "enum"
          ? int32Codec
          : field.longAsString
            ? unsupported(`${where}: 64-bit integer as string`)
            : scalarCodec(field.scalar, field.utf8Validation, where);
      if (field.fieldKind === "enum" && !field.enum.open) throw new Unsupported(`${where}: closed enum`);
      const tag = tagBytes(number, scalar.wireType);
      const tagLength = tag.length;
      const implicit = field.presence === IMPLICIT;
      setDecoder(into, number, scalar.wireType, (r, message) => {
        message[name] = scalar.read(r);
      });
      return {
        localName: name,
        size(value, state) {
          if (implicit ? scalar.isZero(value) : value === undefined) return 0;
          return tagLength + scalar.size(value, state);
        },
        write(value, out, pos, state) {
          if (implicit ? scalar.isZero(value) : value === undefined) return pos;
          return scalar.write(value, out, writeTag(out, pos, tag), state);
        },
      };
    }
    case "message": {
      if (field.delimitedEncoding) throw new Unsupported(`${where}: group encoding`);
      const nested = compile(field.message, where);
      const tag = tagBytes(number, LENGTH_DELIMITED);
      setDecoder(into, number, LENGTH_DELIMITED, (r, message) => {
        // fromBinary merges a message field seen twice; rare enough to leave to it.
        if (message[name] !== undefined) throw handOver;
        message[name] = readBody(nested, r, readLengthEnd(r));
      });
      return {
        localName: name,
        size(value, state) {
          if (value === undefined) return 0;
          return tag.length + sizeDelimited(nested, value, state);
        },
        write(value, out, pos, state) {
          if (value === undefined) return pos;
          return writeDelimited(nested, value as AnyMessage, out, writeTag(out, pos, tag), state);
        },
      };
    }
    case "list": {
      if (field.listKind === "message") {
        if (field.delimitedEncoding) throw new Unsupported(`${where}: group encoding`);
        const nested = compile(field.message, where);
        const tag = tagBytes(number, LENGTH_DELIMITED);
        setDecoder(into, number, LENGTH_DELIMITED, (r, message) => {
          (message[name] as unknown[]).push(readBody(nested, r, readLengthEnd(r)));
        });
        return unpackedList(name, tag, {
          size: (item, state) => sizeDelimited(nested, item, state),
          write: (item, out, pos, state) => writeDelimited(nested, item as AnyMessage, out, pos, state),
        });
      }
      const scalar =
        field.listKind === "enum"
          ? int32Codec
          : field.longAsString
            ? unsupported(`${where}: 64-bit integer as string`)
            : scalarCodec(field.scalar, field.utf8Validation, where);
      if (field.listKind === "enum" && !field.enum.open) throw new Unsupported(`${where}: closed enum`);
      const unpackedTag = tagBytes(number, scalar.wireType);
      setDecoder(into, number, scalar.wireType, (r, message) => {
        (message[name] as unknown[]).push(scalar.read(r));
      });
      if (scalar.wireType !== VARINT) {
        // Strings and bytes are never packed.
        return unpackedList(name, unpackedTag, scalar);
      }
      // A reader accepts both the packed and the unpacked form of a varint list.
      setDecoder(into, number, LENGTH_DELIMITED, (r, message) => {
        const end = readLengthEnd(r);
        const list = message[name] as unknown[];
        while (r.pos < end) list.push(scalar.read(r));
        if (r.pos !== end) throw handOver;
      });
      if (!field.packed) {
        return unpackedList(name, unpackedTag, scalar);
      }
      const packedTag = tagBytes(number, LENGTH_DELIMITED);
      return {
        localName: name,
        size(value, state) {
          if (!Array.isArray(value)) throw handOver;
          if (value.length === 0) return 0;
          let size = 0;
          for (const item of value) size += scalar.size(item, state);
          state.lengths.push(size);
          return packedTag.length + varint32Size(size) + size;
        },
        write(value, out, pos, state) {
          const items = value as unknown[];
          if (items.length === 0) return pos;
          const size = state.lengths[state.next++] as number;
          pos = writeVarint32(out, writeTag(out, pos, packedTag), size);
          for (const item of items) pos = scalar.write(item, out, pos, state);
          return pos;
        },
      };
    }
    case "map":
      return compileMapField(field, into, compile, where);
  }
}

/** A repeated field written item after item, each with its own tag (not packed). */
function unpackedList(
  localName: string,
  tag: number[],
  item: Pick<ScalarCodec, "size" | "write">,
): FieldCodec {
  return {
    localName,
    size(value, state) {
      if (!Array.isArray(value)) throw handOver;
      let size = 0;
      for (const each of value) size += tag.length + item.size(each, state);
      return size;
    },
    write(value, out, pos, state) {
      for (const each of value as unknown[]) pos = item.write(each, out, writeTag(out, pos, tag), state);
      return pos;
    },
  };
}

function compileMapField(
  field: DescField & { fieldKind: "map" },
  into: CompiledMessage,
  compile: Compile,
  where: string,
): FieldCodec {
  if (field.mapKey !== ScalarType.STRING) {
    throw new Unsupported(`${where}: map key type ${ScalarType[field.mapKey]}`);
  }
  const name = field.localName;
  const key = stringCodec(field.utf8Validation);
  const tag = tagBytes(field.number, LENGTH_DELIMITED);
  const keyTag = tagBytes(1, LENGTH_DELIMITED)[0] as number;
  let value: ScalarCodec;
  let nested: CompiledMessage | undefined;
  switch (field.mapKind) {
    case "scalar":
      if ("longAsString" in field && field.longAsString) {
        throw new Unsupported(`${where}: 64-bit integer as string`);
      }
      value = scalarCodec(field.scalar, field.utf8Validation, where);
      break;
    case "enum":
      if (!field.enum.open) throw new Unsupported(`${where}: closed enum`);
      value = int32Codec;
      break;
    case "message": {
      if (field.delimitedEncoding) throw new Unsupported(`${where}: group encoding`);
      const message = compile(field.message, where);
      nested = message;
      value = {
        wireType: LENGTH_DELIMITED,
        isZero: () => false,
        size: (v, state) => sizeDelimited(message, v, state),
        write: (v, out, pos, state) => writeDelimited(message, v as AnyMessage, out, pos, state),
        read: (r) => readBody(message, r, readLengthEnd(r)),
        zero: undefined,
      };
      break;
    }
  }
  const valueTag = tagBytes(2, value.wireType)[0] as number;
  const zeroValue = nested ? () => nested.zero() : () => value.zero;
  setDecoder(into, field.number, LENGTH_DELIMITED, (r, message) => {
    const end = readLengthEnd(r);
    let k = "";
    let v: unknown;
    while (r.pos < end) {
      const t = r.buf[r.pos++];
      if (t === keyTag) k = key.read(r) as string;
      else if (t === valueTag) v = value.read(r);
      // fromBinary reads a map entry's other tags in its own way; leave such bytes to it.
      else throw handOver;
    }
    if (r.pos !== end) throw handOver;
    (message[name] as Record<string, unknown>)[k] = v === undefined ? zeroValue() : v;
  });
  return {
    localName: name,
    size(map, state) {
      if (typeof map !== "object" || map === null) throw handOver;
      let size = 0;
      for (const k of Object.keys(map)) {
        const slot = state.lengths.length;
        state.lengths.push(0);
        // Map entries always carry key and value, as toBinary writes them.
        const entry = 1 + key.size(k, state) + 1 + value.size((map as Record<string, unknown>)[k], state);
        state.lengths[slot] = entry;
        size += tag.length + varint32Size(entry) + entry;
      }
      return size;
    },
    write(map, out, pos, state) {
      const entries = map as Record<string, unknown>;
      for (const k of Object.keys(entries)) {
        pos = writeTag(out, pos, tag);
        pos = writeVarint32(out, pos, state.lengths[state.next++] as number);
        out[pos++] = keyTag;
        pos = key.write(k, out, pos, state);
        out[pos++] = valueTag;
        pos = value.write(entries[k], out, pos, state);
      }
      return pos;
    },
  };
}

function unsupported(reason: string): never {
  throw new Unsupported(reason);
}

// ---------------------------------------------------------------------------------------------------------
// Messages

function sizeBody(compiled: CompiledMessage, message: unknown, state: EncodeState): number {
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

function writeBody(
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
function sizeDelimited(compiled: CompiledMessage, message: unknown, state: EncodeState): number {
  const slot = state.lengths.length;
  state.lengths.push(0);
  const body = sizeBody(compiled, message, state);
  state.lengths[slot] = body;
  return varint32Size(body) + body;
}

function writeDelimited(
  compiled: CompiledMessage,
  message: AnyMessage,
  out: Buffer,
  pos: number,
  state: EncodeState,
): number {
  pos = writeVarint32(out, pos, state.lengths[state.next++] as number);
  return writeBody(compiled, message, out, pos, state);
}

function readBody(compiled: CompiledMessage, r: Reader, end: number): AnyMessage {
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

type Compile = (desc: DescMessage, where: string) => CompiledMessage;

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
