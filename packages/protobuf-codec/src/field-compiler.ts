/**
 * Compiles one field of a message (singular, optional, repeated packed or not, map, message) into closures
 * that size, write and read it.
 */
import { type DescField, ScalarType } from "@bufbuild/protobuf";
import {
  type AnyMessage,
  type Compile,
  type CompiledMessage,
  type FieldCodec,
  handOver,
  IMPLICIT,
  LENGTH_DELIMITED,
  Unsupported,
  unsupported,
  VARINT,
} from "./codec-model.js";
import { readBody, sizeDelimited, writeDelimited } from "./message-body.js";
import { int32Codec, type ScalarCodec, scalarCodec, stringCodec } from "./scalar-codecs.js";
import {
  readLengthEnd,
  setDecoder,
  tagBytes,
  varint32Size,
  writeTag,
  writeVarint32,
} from "./wire-primitives.js";

/** Compiles one field of a message: its sizing and writing, and its decoders on `into`. */
export function compileField(field: DescField, into: CompiledMessage, compile: Compile): FieldCodec {
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

/** Compiles a map field: each entry written as a nested key/value message. */
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
