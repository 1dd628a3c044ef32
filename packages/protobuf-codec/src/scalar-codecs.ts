/**
 * How each scalar type is checked, sized, written and read, with protobuf-es's exact rules.
 */
import { protoInt64, ScalarType } from "@bufbuild/protobuf";
import {
  type EncodeState,
  handOver,
  LENGTH_DELIMITED,
  type Reader,
  Unsupported,
  VARINT,
} from "./codec-model.js";
import {
  readBytes,
  readString,
  readVarint32,
  readVarint64,
  utf8Length,
  varint32Size,
  varint64Size,
  writeUtf8,
  writeVarint32,
  writeVarint64,
} from "./wire-primitives.js";

// ---------------------------------------------------------------------------------------------------------
// Scalars

/** How one scalar type is checked, sized, written and read. */
export interface ScalarCodec {
  wireType: number;
  /** Is this the zero value (an implicit-presence field holding it is not written)? */
  isZero(value: unknown): boolean;
  /** Size of the value alone; hands over for a value of the wrong type. */
  size(value: unknown, state: EncodeState): number;
  write(value: unknown, out: Buffer, pos: number, state: EncodeState): number;
  read(r: Reader): unknown;
  zero: unknown;
}

/** Whether a value is a number protobuf-es accepts for an int32 field. */
function isInt32(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff;
}
/** Whether a value is a number protobuf-es accepts for a uint32 field. */
function isUint32(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

/** The bounds of 64-bit integer fields. */
const INT64_MIN = -(2n ** 63n);
/** The bounds of 64-bit integer fields. */
const INT64_MAX = 2n ** 63n - 1n;
/** The bounds of 64-bit integer fields. */
const UINT64_MAX = 2n ** 64n - 1n;

/** The two 32-bit halves of a 64-bit value, or a hand over when it is not a bigint in range. */
function int64Halves(value: unknown, unsigned: boolean): { lo: number; hi: number } {
  if (typeof value !== "bigint") throw handOver;
  if (unsigned ? value < 0n || value > UINT64_MAX : value < INT64_MIN || value > INT64_MAX) throw handOver;
  return unsigned ? protoInt64.uEnc(value) : protoInt64.enc(value);
}

/** The codec of `string` fields; `strict` refuses invalid UTF-8 on decode, as protobuf-es does. */
export function stringCodec(strict: boolean): ScalarCodec {
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

/** The codec of `bytes` fields. */
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

/** The codec of `bool` fields. */
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

/** The codec of `int32` fields. */
export const int32Codec: ScalarCodec = {
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

/** The codec of `uint32` fields. */
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

/** The codec of `sint32` fields (zigzag). */
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

/** The codec of `int64` (or, `unsigned`, `uint64`) fields. */
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

/** The codec of `sint64` fields (zigzag). */
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

/** A signed 64-bit value zigzag-encoded, as low and high 32 bits. */
function zigzag64(value: unknown): { lo: number; hi: number } {
  const { lo, hi } = int64Halves(value, false);
  const sign = hi >> 31;
  return { lo: ((lo << 1) ^ sign) >>> 0, hi: (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0 };
}

/** The codec of a scalar type. @throws Unsupported for a scalar type the compiler does not handle. */
export function scalarCodec(scalar: ScalarType, strict: boolean, where: string): ScalarCodec {
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
