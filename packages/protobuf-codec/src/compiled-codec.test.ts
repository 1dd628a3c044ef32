import {
  create,
  createFileRegistry,
  type DescField,
  type DescFile,
  type DescMessage,
  equals,
  fromBinary,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import {
  FileDescriptorProtoSchema,
  StructSchema,
  TimestampSchema,
  ValueSchema,
} from "@bufbuild/protobuf/wkt";
import {
  CodeExecutionReplySchema,
  file_ai_wanaku_codeexecution_v1_codeexecution,
  file_ai_wanaku_health_v1_healthprobe,
  file_ai_wanaku_provision_v1_provision,
  file_ai_wanaku_resource_v1_resourcerequest,
  file_ai_wanaku_tool_v1_toolrequest,
  ToolInvokeReplySchema,
  ToolInvokeRequestSchema,
} from "@trestle/proto";
import { legacyCodeExecution, legacyProvision, legacyResource, legacyTool } from "@trestle/proto/legacy";
import { describe, expect, it } from "vitest";
import { compileMessageCodec, type MessageCodec } from "./compiled-codec.js";

const files: DescFile[] = [
  file_ai_wanaku_codeexecution_v1_codeexecution,
  file_ai_wanaku_health_v1_healthprobe,
  file_ai_wanaku_provision_v1_provision,
  file_ai_wanaku_resource_v1_resourcerequest,
  file_ai_wanaku_tool_v1_toolrequest,
  legacyCodeExecution.file_legacy_codeexecution_codeexecution,
  legacyProvision.file_legacy_tool_provision,
  legacyResource.file_legacy_resource_resourcerequest,
  legacyTool.file_legacy_tool_toolrequest,
];

/** Every message type of the Wanaku contract (both dialects), with the types its fields refer to. */
function contractMessages(): DescMessage[] {
  const found = new Map<string, DescMessage>();
  const visit = (desc: DescMessage) => {
    if (found.has(desc.typeName)) return;
    found.set(desc.typeName, desc);
    for (const nested of desc.nestedMessages) visit(nested);
    for (const field of desc.fields) if (field.message) visit(field.message);
  };
  for (const file of files) for (const message of file.messages) visit(message);
  return [...found.values()];
}

const MESSAGES = contractMessages();
const ROUNDS = 300;

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Random {
  next: () => number;
  int: (below: number) => number;
  pick: <T>(items: readonly T[]) => T;
}

function random(seed: number): Random {
  const next = seeded(seed);
  const int = (below: number) => Math.floor(next() * below);
  return { next, int, pick: (items) => items[int(items.length)] as (typeof items)[number] };
}

// Letters from every UTF-8 length: ASCII, 2-byte, 3-byte (CJK), 4-byte astral (emoji, a musical symbol).
const LETTERS = ["a", "Z", "0", " ", "\n", '"', "é", "ß", "Ω", "中", "文", "€", "😀", "𝄞", "👩‍💻", "\u0000"];

function randomString(r: Random): string {
  switch (r.int(6)) {
    case 0:
      return "";
    case 1:
      return r.pick(["x", "tool://weather/forecast", "1", "42", "toString", "hasOwnProperty"]);
    case 2: {
      // Long enough for the native UTF-8 path.
      let text = "";
      const length = 60 + r.int(200);
      while (text.length < length) text += r.pick(LETTERS);
      return text;
    }
    default: {
      let text = "";
      const length = r.int(20);
      for (let i = 0; i < length; i++) text += r.pick(LETTERS);
      return text;
    }
  }
}

const INT32 = [0, 1, -1, 127, 128, 300, 2 ** 31 - 1, -(2 ** 31), 16_384, -129];
const UINT32 = [0, 1, 127, 128, 2 ** 32 - 1, 2 ** 28, 2 ** 21 - 1];
const INT64 = [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 32n, 2n ** 35n + 7n, 9_007_199_254_740_993n];
const UINT64 = [0n, 1n, 2n ** 64n - 1n, 2n ** 32n, 2n ** 56n];

function randomScalar(r: Random, scalar: ScalarType): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return randomString(r);
    case ScalarType.BOOL:
      return r.next() < 0.5;
    case ScalarType.BYTES:
      return new Uint8Array(Array.from({ length: r.int(10) }, () => r.int(256)));
    case ScalarType.INT32:
    case ScalarType.SINT32:
      return r.next() < 0.5 ? r.pick(INT32) : r.int(2 ** 31) * (r.next() < 0.5 ? -1 : 1);
    case ScalarType.UINT32:
      return r.pick(UINT32);
    case ScalarType.INT64:
    case ScalarType.SINT64:
      return r.next() < 0.6 ? r.pick(INT64) : BigInt(r.int(2 ** 31)) * BigInt(r.int(2 ** 31) - 2 ** 30);
    case ScalarType.UINT64:
      return r.pick(UINT64);
    default:
      throw new Error(`no generator for ${ScalarType[scalar]}`);
  }
}

function randomEnum(r: Random, field: DescField): number {
  const values = field.enum?.values ?? [];
  // Open enums keep numbers they do not know.
  return r.next() < 0.85 ? (r.pick(values).number ?? 0) : r.pick([99, -1, 2 ** 31 - 1]);
}

function randomValue(r: Random, field: DescField, depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return randomScalar(r, field.scalar);
    case "enum":
      return randomEnum(r, field);
    case "message":
      return randomMessage(r, field.message, depth + 1);
    case "list": {
      const count = r.pick([0, 0, 1, 2, 3, 8, 40]);
      return Array.from({ length: count }, () =>
        field.listKind === "message"
          ? randomMessage(r, field.message, depth + 1)
          : field.listKind === "enum"
            ? randomEnum(r, field)
            : randomScalar(r, field.scalar),
      );
    }
    case "map": {
      const count = r.pick([0, 0, 1, 2, 3, 5, 60]);
      const map: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) {
        const key = randomString(r);
        map[key] =
          field.mapKind === "message"
            ? randomMessage(r, field.message, depth + 1)
            : field.mapKind === "enum"
              ? randomEnum(r, field)
              : randomScalar(r, field.scalar);
      }
      return map;
    }
  }
}

/** A random message of any contract type: empty and full fields, zero values, explicit zeros, large ints. */
function randomMessage(r: Random, desc: DescMessage, depth = 0): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const field of desc.fields) {
    if (r.next() < 0.2) continue;
    if (field.fieldKind === "message" && depth > 3) continue;
    init[field.localName] = randomValue(r, field, depth);
  }
  return create(desc, init) as unknown as Record<string, unknown>;
}

type AnyCodec = MessageCodec<DescMessage>;
/** Messages handed to protobuf-es, by direction: none for well-formed input and messages. */
const handOvers = { encode: 0, decode: 0 };
const countHandOver = (direction: "encode" | "decode") => {
  handOvers[direction]++;
};
const codecs = new Map<DescMessage, AnyCodec>(
  MESSAGES.map((desc) => [desc, compileMessageCodec(desc, { onHandOver: countHandOver })]),
);
const codecOf = (desc: DescMessage) => codecs.get(desc) as AnyCodec;

/** What fromBinary makes of `bytes`: the message, or the error it throws. */
function outcome(run: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** The compiled decoder does with `bytes` exactly what fromBinary does: the same message or the same error. */
function expectSameDecoding(desc: DescMessage, bytes: Uint8Array) {
  const expected = outcome(() => fromBinary(desc, bytes));
  const actual = outcome(() => codecOf(desc).decode(bytes));
  if ("error" in expected) {
    expect(actual).toEqual(expected);
    return;
  }
  expect("error" in actual ? actual.error : "decoded").toBe("decoded");
  const value = (actual as { value: never }).value;
  expect(value).toStrictEqual(expected.value);
  expect(equals(desc, value, expected.value as never)).toBe(true);
}

describe("compileMessageCodec on the Wanaku contract", () => {
  it("finds the contract's messages and compiles every one of them", () => {
    expect(MESSAGES.length).toBeGreaterThanOrEqual(20);
    for (const desc of MESSAGES) {
      expect({ type: desc.typeName, reason: codecOf(desc).fallbackReason }).toEqual({
        type: desc.typeName,
        reason: undefined,
      });
      expect(codecOf(desc).compiled).toBe(true);
    }
  });

  it("decodes empty input to the message create() makes", () => {
    for (const desc of MESSAGES) {
      const decoded = codecOf(desc).decode(new Uint8Array(0));
      expect(decoded).toStrictEqual(create(desc));
      expect(decoded).toStrictEqual(fromBinary(desc, new Uint8Array(0)));
    }
  });

  for (const [index, desc] of MESSAGES.entries()) {
    it(`round-trips ${ROUNDS} random ${desc.typeName} both ways, with toBinary's bytes`, () => {
      const r = random(1000 + index);
      const codec = codecOf(desc);
      handOvers.encode = 0;
      handOvers.decode = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const message = randomMessage(r, desc) as never;
        const reference = toBinary(desc, message);
        const compiled = codec.encode(message);
        // Byte for byte what toBinary writes: field-number order, map entries in key order.
        expect(Buffer.from(compiled).equals(Buffer.from(reference)), `round ${round}`).toBe(true);
        const viaProtobufEs = fromBinary(desc, compiled);
        expect(equals(desc, viaProtobufEs, message)).toBe(true);
        expect(viaProtobufEs).toStrictEqual(message);
        const viaCompiled = codec.decode(reference);
        expect(equals(desc, viaCompiled, message)).toBe(true);
        expect(viaCompiled).toStrictEqual(fromBinary(desc, reference));
        // The framed form carries the same bytes after a 5-byte gRPC prefix.
        const framed = codec.encodeFramed(message);
        expect(framed[0]).toBe(0);
        expect(framed.readUInt32BE(1)).toBe(reference.byteLength);
        expect(framed.subarray(5).equals(Buffer.from(reference))).toBe(true);
      }
      // All of it done by the compiled code, none handed to protobuf-es.
      expect(handOvers).toEqual({ encode: 0, decode: 0 });
    });
  }

  it("decodes concatenated encodings as fromBinary merges them (last scalar wins, lists append, maps merge)", () => {
    const r = random(7);
    for (const desc of MESSAGES) {
      for (let round = 0; round < 60; round++) {
        const a = toBinary(desc, randomMessage(r, desc) as never);
        const b = toBinary(desc, randomMessage(r, desc) as never);
        expectSameDecoding(desc, Buffer.concat([a, b]));
      }
    }
  });

  it("keeps unknown fields in $unknown as fromBinary does", () => {
    const r = random(11);
    for (const desc of MESSAGES) {
      for (let round = 0; round < 40; round++) {
        const bytes = toBinary(desc, randomMessage(r, desc) as never);
        // An unknown varint field (number 99) and an unknown length-delimited one (number 2000).
        const unknown = Buffer.from([0x98, 0x06, 0x2a, 0x82, 0x7d, 0x02, 0x68, 0x69]);
        expectSameDecoding(desc, Buffer.concat([bytes, unknown]));
        expectSameDecoding(desc, Buffer.concat([unknown, bytes]));
        const decoded = codecOf(desc).decode(Buffer.concat([bytes, unknown]));
        expect((decoded as { $unknown?: unknown[] }).$unknown).toHaveLength(2);
      }
    }
  });

  it("fails on truncated input wherever fromBinary fails, never returning a partial message", () => {
    const r = random(13);
    let refused = 0;
    for (const desc of MESSAGES) {
      for (let round = 0; round < 30; round++) {
        const bytes = toBinary(desc, randomMessage(r, desc) as never);
        const cuts = [0, 1, bytes.length - 1, ...Array.from({ length: 25 }, () => r.int(bytes.length))];
        for (const cut of cuts.filter((c) => c >= 0 && c < bytes.length)) {
          const truncated = bytes.subarray(0, cut);
          expectSameDecoding(desc, truncated);
          if ("error" in outcome(() => fromBinary(desc, truncated))) {
            expect(() => codecOf(desc).decode(truncated)).toThrow();
            refused++;
          }
        }
      }
    }
    expect(refused).toBeGreaterThan(100);
    // Some 20,000 decodings each way: a few seconds alone, many more on a loaded machine.
  }, 120_000);

  it("handles wrong wire types, flipped bytes and over-long varints as fromBinary does", () => {
    const r = random(17);
    for (const desc of MESSAGES) {
      for (let round = 0; round < 40; round++) {
        const bytes = Buffer.from(toBinary(desc, randomMessage(r, desc) as never));
        if (bytes.length === 0) continue;
        // Another wire type on the first tag.
        const rewired = Buffer.from(bytes);
        rewired[0] = ((rewired[0] as number) & ~7) | r.pick([0, 1, 2, 3, 4, 5, 6, 7]);
        expectSameDecoding(desc, rewired);
        // Any byte changed.
        const flipped = Buffer.from(bytes);
        flipped[r.int(flipped.length)] = r.int(256);
        expectSameDecoding(desc, flipped);
      }
    }
    const request = ToolInvokeRequestSchema;
    // Field 1 (uri) with an 11-byte length varint, then a 6-byte tag, then a tag with field number 0.
    expectSameDecoding(
      request,
      Buffer.from([0x0a, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
    );
    expectSameDecoding(request, Buffer.from([0x8a, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01, 0x61]));
    expectSameDecoding(request, Buffer.from([0x02, 0x01, 0x61]));
    expect(() => codecOf(request).decode(Buffer.from([0x0a, 0x05, 0x61]))).toThrow();
    // Invalid UTF-8 (short and long strings) is refused as fromBinary refuses it: a bad continuation, an
    // overlong form, an encoded surrogate, a code point over U+10FFFF, a cut sequence, a stray continuation.
    const invalid = [
      [0xc3, 0x28],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0x80],
    ];
    for (const sequence of invalid) {
      for (const padding of [0, 3, 40]) {
        const text = [...Buffer.from("a".repeat(padding)), ...sequence, 0x62];
        const bytes = Buffer.from([0x0a, text.length, ...text]);
        expect(() => codecOf(request).decode(bytes)).toThrow();
        expectSameDecoding(request, bytes);
      }
    }
    // A real U+FFFD and a leading BOM, short and long, decode as TextDecoder decodes them.
    for (const text of [
      "\ufffd",
      "abc\ufffddefghijkl",
      "\ufeffabcdefghijkl",
      "\ufeff",
      "x\ufeffabcdefghijkl",
    ]) {
      const bytes = toBinary(request, create(request, { uri: text }));
      expectSameDecoding(request, bytes);
    }
    expect(() => codecOf(request).decode(Buffer.from([0x0a, 0x02, 0xc3, 0x28]))).toThrow();
    expectSameDecoding(request, Buffer.from([0x0a, 0x02, 0xc3, 0x28]));
  });

  it("encodes strings exactly as TextEncoder does: lone surrogates, a leading BOM, long mixed text", () => {
    const codec = codecOf(ToolInvokeRequestSchema);
    const texts = [
      "\ud800",
      "a\udc00b",
      "\ud83d",
      "x\ud83d",
      "\ufeffbom",
      "😀".repeat(40),
      `${"é".repeat(70)}\ud800`,
      "\u07ff\u0800\uffff",
    ];
    for (const text of texts) {
      const message = create(ToolInvokeRequestSchema, { uri: text, arguments: { [text]: text } });
      const reference = toBinary(ToolInvokeRequestSchema, message);
      expect(Buffer.from(codec.encode(message)).equals(Buffer.from(reference)), text).toBe(true);
      expectSameDecoding(ToolInvokeRequestSchema, reference);
    }
  });

  it("hands a message it cannot check to toBinary, which encodes or refuses it the same way", () => {
    const codec = codecOf(ToolInvokeRequestSchema);
    const withUnknown = fromBinary(
      ToolInvokeRequestSchema,
      Buffer.from([0x98, 0x06, 0x2a, 0x0a, 0x01, 0x61]),
    );
    expect(Buffer.from(codec.encode(withUnknown))).toEqual(
      Buffer.from(toBinary(ToolInvokeRequestSchema, withUnknown)),
    );
    const wrongType = { ...create(CodeExecutionReplySchema), exitCode: 1.5 };
    const refused = outcome(() => toBinary(CodeExecutionReplySchema, wrongType));
    expect(refused).toHaveProperty("error");
    expect(outcome(() => codecOf(CodeExecutionReplySchema).encode(wrongType))).toEqual(refused);
    const optionalZero = create(CodeExecutionReplySchema, { exitCode: 0 });
    const bytes = codecOf(CodeExecutionReplySchema).encode(optionalZero);
    // An explicit zero is present on the wire.
    expect(Buffer.from(bytes)).toEqual(Buffer.from([0x28, 0x00]));
    expect(fromBinary(CodeExecutionReplySchema, bytes).exitCode).toBe(0);
  });
});

describe("compileMessageCodec fallback", () => {
  it("uses toBinary/fromBinary for types it does not compile, naming the reason", () => {
    const value = compileMessageCodec(ValueSchema);
    expect(value.compiled).toBe(false);
    expect(value.fallbackReason).toMatch(/oneof|not represented/);
    const message = create(ValueSchema, { kind: { case: "stringValue", value: "x" } });
    expect(fromBinary(ValueSchema, value.encode(message))).toEqual(message);
    expect(value.decode(toBinary(ValueSchema, message))).toEqual(message);
    const framed = value.encodeFramed(message);
    expect(framed.readUInt32BE(1)).toBe(framed.length - 5);
    expect(compileMessageCodec(StructSchema).compiled).toBe(false);
    // google.protobuf.Timestamp is an ordinary message and compiles.
    expect(compileMessageCodec(TimestampSchema).compiled).toBe(true);
  });

  it("compiles the typical tool call messages", () => {
    expect(compileMessageCodec(ToolInvokeRequestSchema).compiled).toBe(true);
    expect(compileMessageCodec(ToolInvokeReplySchema).compiled).toBe(true);
  });
});

/**
 * A proto3 message with every field kind the compiler handles beyond what the contract uses: packed and
 * unpacked varint lists, zigzag and unsigned integers, bytes, enum lists, maps of 64-bit integers, bools and
 * enums, repeated messages, `optional` fields — built as a descriptor at run time.
 */
function allKindsMessage(): DescMessage {
  const T = {
    int64: 3,
    uint64: 4,
    int32: 5,
    bool: 8,
    string: 9,
    message: 11,
    bytes: 12,
    uint32: 13,
    enum: 14,
  };
  const Z = { sint32: 17, sint64: 18 };
  const OPTIONAL = 1;
  const REPEATED = 3;
  const field = (name: string, number: number, type: number, label = OPTIONAL, extra: object = {}) => ({
    name,
    number,
    type,
    label,
    jsonName: name,
    ...extra,
  });
  const entry = (name: string, valueType: number, valueTypeName?: string) => ({
    name,
    field: [
      field("key", 1, T.string),
      field("value", 2, valueType, OPTIONAL, valueTypeName ? { typeName: valueTypeName } : {}),
    ],
    options: { mapEntry: true },
  });
  const file = create(FileDescriptorProtoSchema, {
    name: "kinds.proto",
    package: "kinds",
    syntax: "proto3",
    enumType: [
      {
        name: "Color",
        value: [
          { name: "COLOR_NONE", number: 0 },
          { name: "COLOR_RED", number: 1 },
        ],
      },
    ],
    messageType: [
      {
        name: "Kinds",
        field: [
          field("i32", 1, T.int32),
          field("u32", 2, T.uint32),
          field("s32", 3, Z.sint32),
          field("i64", 4, T.int64),
          field("u64", 5, T.uint64),
          field("s64", 6, Z.sint64),
          field("flag", 7, T.bool),
          field("blob", 8, T.bytes),
          field("color", 9, T.enum, OPTIONAL, { typeName: ".kinds.Color" }),
          field("packed_i32", 10, T.int32, REPEATED),
          field("packed_s64", 11, Z.sint64, REPEATED),
          field("unpacked_u32", 12, T.uint32, REPEATED, { options: { packed: false } }),
          field("colors", 13, T.enum, REPEATED, { typeName: ".kinds.Color" }),
          field("blobs", 14, T.bytes, REPEATED),
          field("counts", 15, T.message, REPEATED, { typeName: ".kinds.Kinds.CountsEntry" }),
          field("flags", 16, T.message, REPEATED, { typeName: ".kinds.Kinds.FlagsEntry" }),
          field("tints", 17, T.message, REPEATED, { typeName: ".kinds.Kinds.TintsEntry" }),
          field("children", 18, T.message, REPEATED, { typeName: ".kinds.Leaf" }),
          field("maybe_flag", 19, T.bool, OPTIONAL, { proto3Optional: true, oneofIndex: 0 }),
          field("maybe_u64", 20, T.uint64, OPTIONAL, { proto3Optional: true, oneofIndex: 1 }),
          field("leaf", 21, T.message, OPTIONAL, { typeName: ".kinds.Leaf" }),
          field("far", 2000, T.string),
        ],
        nestedType: [
          entry("CountsEntry", T.int64),
          entry("FlagsEntry", T.bool),
          entry("TintsEntry", T.enum, ".kinds.Color"),
        ],
        oneofDecl: [{ name: "_maybe_flag" }, { name: "_maybe_u64" }],
      },
      { name: "Leaf", field: [field("name", 1, T.string), field("tags", 2, T.string, REPEATED)] },
    ],
  });
  const registry = createFileRegistry(file, () => undefined);
  const kinds = registry.getMessage("kinds.Kinds");
  if (!kinds) throw new Error("kinds.Kinds not built");
  return kinds;
}

describe("compileMessageCodec on every field kind it compiles", () => {
  const desc = allKindsMessage();
  let handedOver = 0;
  const codec = compileMessageCodec(desc, {
    onHandOver: () => {
      handedOver++;
    },
  });

  it("compiles the message", () => {
    expect(codec.fallbackReason).toBeUndefined();
  });

  it("round-trips random messages both ways, byte for byte, and refuses what fromBinary refuses", () => {
    const r = random(23);
    for (let round = 0; round < 400; round++) {
      const message = randomMessage(r, desc) as never;
      const reference = toBinary(desc, message);
      expect(Buffer.from(codec.encode(message)).equals(Buffer.from(reference)), `round ${round}`).toBe(true);
      // A plain Uint8Array: decoded bytes fields are views on the input, Buffers for a Buffer input.
      expect(fromBinary(desc, new Uint8Array(codec.encode(message)))).toStrictEqual(message);
      const before = handedOver;
      const decoded = codec.decode(reference);
      expect(decoded).toStrictEqual(fromBinary(desc, reference));
      expect(equals(desc, decoded, message)).toBe(true);
      expect(handedOver).toBe(before);
      const bytes = Buffer.from(reference);
      if (bytes.length > 0) {
        expectSameDecodingWith(codec, bytes.subarray(0, r.int(bytes.length)));
        const flipped = Buffer.from(bytes);
        flipped[r.int(flipped.length)] = r.int(256);
        expectSameDecodingWith(codec, flipped);
        expectSameDecodingWith(codec, Buffer.concat([bytes, bytes]));
      }
    }
  });

  it("reads a packed list sent unpacked and an unpacked list sent packed, as fromBinary does", () => {
    // packed_i32 (10) as two unpacked varints; unpacked_u32 (12) as one packed run of 1, 300.
    const bytes = Buffer.from([0x50, 0x01, 0x50, 0x7f, 0x62, 0x03, 0x01, 0xac, 0x02]);
    handedOver = 0;
    const decoded = codec.decode(bytes) as unknown as { packedI32: number[]; unpackedU32: number[] };
    expect(decoded.packedI32).toEqual([1, 127]);
    expect(decoded.unpackedU32).toEqual([1, 300]);
    expect(handedOver).toBe(0);
    expectSameDecodingWith(codec, bytes);
  });
});

function expectSameDecodingWith(codec: AnyCodec, bytes: Uint8Array) {
  const expected = outcome(() => fromBinary(codec.desc, bytes));
  const actual = outcome(() => codec.decode(bytes));
  if ("error" in expected) {
    expect(actual).toEqual(expected);
    return;
  }
  expect("error" in actual ? actual.error : "decoded").toBe("decoded");
  expect((actual as { value: unknown }).value).toStrictEqual(expected.value);
}
