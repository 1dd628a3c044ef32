/**
 * The shapes the codec compiler and the compiled codecs share: wire types, compiled messages and fields, the
 * reader and encoder state, and the two signals (hand the message over to protobuf-es; cannot compile).
 */
import type { DescMessage } from "@bufbuild/protobuf";

/** Editions number of proto3, from google.protobuf.Edition (as protobuf-es uses it). */
export const EDITION_PROTO3 = 999;
/** FieldPresence.IMPLICIT (as protobuf-es uses it). */
export const IMPLICIT = 2;

/** The varint wire type. */
export const VARINT = 0;
/** The length-delimited wire type. */
export const LENGTH_DELIMITED = 2;

/** Types protobuf-es represents as something other than a message when they are a field's type. */
export const UNWRAPPED_TYPES = new Set([
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
export class HandOver extends Error {}
/** The one {@link HandOver} thrown (no stack to build on the hot path). */
export const handOver = new HandOver("hand over to protobuf-es");

/** Thrown while compiling: the descriptor has something the compiler does not handle. */
export class Unsupported extends Error {}

/** Byte lengths measured by the sizing pass, read back in the same order by the writing pass. */
export interface EncodeState {
  lengths: number[];
  next: number;
}

/** The decoder's position in the input. */
export interface Reader {
  buf: Uint8Array;
  pos: number;
  /** The input as a Buffer view (no copy), for native UTF-8 slicing. */
  view: Buffer;
}

/** A message as protobuf-es represents it: its fields by local name, and its type name. */
export type AnyMessage = Record<string, unknown> & { $typeName: string };

/** One field of a compiled message. */
export interface FieldCodec {
  readonly localName: string;
  /** Encoded size of the field (tag included); 0 when not set. @throws HandOver */
  size(value: unknown, state: EncodeState): number;
  /** Writes the field when set, at `pos`; returns the position after it. */
  write(value: unknown, out: Buffer, pos: number, state: EncodeState): number;
}

/** A value decoder for one wire type: reads one value and stores it on the message. */
export type FieldDecoder = (reader: Reader, message: AnyMessage) => void;

/** A compiled message: sizing, writing and reading of its body. */
export interface CompiledMessage {
  readonly typeName: string;
  fields: FieldCodec[];
  /** Decoders indexed by the full tag (field number << 3 | wire type). */
  decoders: (FieldDecoder | undefined)[];
  zero: () => AnyMessage;
}

/** Compiles (or finds compiled) the message type a field refers to. */
export type Compile = (desc: DescMessage, where: string) => CompiledMessage;

/** Stops compiling: the descriptor has something the compiler does not handle. */
export function unsupported(reason: string): never {
  throw new Unsupported(reason);
}
