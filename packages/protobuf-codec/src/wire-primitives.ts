/**
 * The wire's primitives on Buffers: varints (32 and 64 bits), UTF-8 strings, bytes, and field tags.
 */
import { getTextEncoding } from "@bufbuild/protobuf/wire";
import { type CompiledMessage, type FieldDecoder, handOver, type Reader } from "./codec-model.js";

// ---------------------------------------------------------------------------------------------------------
// Varints and UTF-8

/** The encoded size of an int32 as a varint (10 bytes for a negative value, sign-extended). */
export function varint32Size(value: number): number {
  if (value < 0) return 10;
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** Writes an unsigned 32-bit value (or a negative int32, sign-extended to 10 bytes as protobuf does). */
export function writeVarint32(out: Buffer, pos: number, value: number): number {
  if (value < 0) return writeVarint64(out, pos, value | 0, -1);
  let v = value >>> 0;
  while (v > 0x7f) {
    out[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[pos++] = v;
  return pos;
}

/** The encoded size of a 64-bit varint given as its low and high 32 bits. */
export function varint64Size(lo: number, hi: number): number {
  if (hi === 0) return varint32Size(lo >>> 0);
  const h = hi >>> 0;
  if (h < 0x8) return 5;
  if (h < 0x400) return 6;
  if (h < 0x20000) return 7;
  if (h < 0x1000000) return 8;
  if (h < 0x80000000) return 9;
  return 10;
}

/** Writes a 64-bit varint given as its low and high 32 bits at `pos`; returns the position after it. */
export function writeVarint64(out: Buffer, pos: number, lo: number, hi: number): number {
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
export function readVarint32(r: Reader): number {
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
export function readTag(r: Reader): number {
  const start = r.pos;
  const tag = readVarint32(r);
  const read = r.pos - start;
  if (read > 5 || (read === 5 && (r.buf[r.pos - 1] as number) > 0x0f)) throw handOver;
  return tag;
}

/** Reads a 64-bit varint as two 32-bit halves, as protobuf-es does; hands over where that would throw. */
export function readVarint64(r: Reader): [number, number] {
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
export function utf8Length(text: string): number {
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
export function writeUtf8(out: Buffer, pos: number, text: string, length: number): number {
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

/** protobuf-es's own UTF-8 decoder (strict: invalid input throws). */
const decodeUtf8 = (bytes: Uint8Array, strict: boolean): string =>
  getTextEncoding().decodeUtf8(bytes, strict);

/**
 * Reads a length-delimited string with the outcome of protobuf-es's decoder (TextDecoder). Node's native
 * UTF-8 slicing gives the same string for valid UTF-8 and puts U+FFFD where the input is invalid; a result
 * holding U+FFFD (invalid input, or a U+FFFD really sent) or starting with a BOM (which TextDecoder drops) is
 * decoded again by protobuf-es's own decoder, so invalid UTF-8 is refused (or replaced) exactly as there.
 */
export function readString(r: Reader, strict: boolean): string {
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

/** Reads a length-delimited bytes value (a copy, as protobuf-es returns). */
export function readBytes(r: Reader): Uint8Array {
  const length = readVarint32(r);
  const start = r.pos;
  const end = start + length;
  if (end > r.buf.length) throw handOver;
  r.pos = end;
  // fromBinary returns a view on the input too.
  return r.buf.subarray(start, end);
}

// ---------------------------------------------------------------------------------------------------------
// Field tags

/** A field's tag (field number and wire type) as varint bytes, computed once per field. */
export function tagBytes(fieldNo: number, wireType: number): number[] {
  const bytes: number[] = [];
  let tag = ((fieldNo << 3) | wireType) >>> 0;
  while (tag > 0x7f) {
    bytes.push((tag & 0x7f) | 0x80);
    tag >>>= 7;
  }
  bytes.push(tag);
  return bytes;
}

/** Writes a precomputed tag at `pos`; returns the position after it. */
export function writeTag(out: Buffer, pos: number, tag: number[]): number {
  for (let i = 0; i < tag.length; i++) out[pos++] = tag[i] as number;
  return pos;
}

/** Registers the decoder of a field's wire type on a compiled message. */
export function setDecoder(
  compiled: CompiledMessage,
  fieldNo: number,
  wireType: number,
  decoder: FieldDecoder,
) {
  compiled.decoders[((fieldNo << 3) | wireType) >>> 0] = decoder;
}

/** Reads the length of a length-delimited value and checks it fits in the input; returns its end. */
export function readLengthEnd(r: Reader): number {
  const length = readVarint32(r);
  const end = r.pos + length;
  if (end > r.buf.length) throw handOver;
  return end;
}
