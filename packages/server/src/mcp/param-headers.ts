import { ModernErrorCode } from "./protocol-era.js";
import { ProtocolError } from "./protocol-error.js";

/** One argument a tool's input schema marks with `x-mcp-header`: the header's name part and the argument's path. */
interface HeaderMark {
  name: string;
  path: readonly string[];
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Visible ASCII and spaces inside, as an HTTP field value may hold without encoding. */
const PLAIN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The marks of a schema, following `properties` from the root (the only place a mark counts). */
function marksOf(schema: unknown, path: string[] = [], marks: HeaderMark[] = []): HeaderMark[] {
  if (!isObject(schema)) return marks;
  if (path.length > 0 && typeof schema["x-mcp-header"] === "string") {
    marks.push({ name: schema["x-mcp-header"], path });
  }
  if (isObject(schema.properties) && path.length < 8) {
    for (const [property, sub] of Object.entries(schema.properties)) marksOf(sub, [...path, property], marks);
  }
  return marks;
}

/** The value of an `Mcp-Param-*` header as the client meant it, or `undefined` when it is malformed. */
function decode(header: string): string | undefined {
  if (header.startsWith("=?base64?") && header.endsWith("?=") && header.length >= 11) {
    const encoded = header.slice(9, -2);
    return STRICT_BASE64.test(encoded) ? Buffer.from(encoded, "base64").toString("utf8") : undefined;
  }
  return PLAIN_VALUE.test(header) ? header : undefined;
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === "string") return header === value;
  // Numbers compare numerically (42.0 and 42 are the same), as the transport spec asks.
  if (typeof value === "number") return header.trim() !== "" && Number(header) === value;
  if (typeof value === "boolean") return header === String(value);
  return false;
}

/** A {@link ParamHeaderCheck} with its own cache of each schema's marks. */
export type ParamHeaderCheck = (
  inputSchema: unknown,
  args: Record<string, unknown>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
) => void;

/**
 * Creates the check of a stateless HTTP `tools/call`'s `Mcp-Param-*` headers against its arguments, for the
 * arguments the tool's input schema marks with `x-mcp-header`: a marked argument present in the body needs its
 * header, valid (visible ASCII, or the `=?base64?…?=` form with padded Base64) and equal to it. Catalog schemas are
 * frozen and shared, so each one's marks are found once (weakly cached), not on every call.
 *
 * The check throws ProtocolError -32020 (header mismatch) naming the header and what was wrong.
 */
export function createParamHeaderCheck(): ParamHeaderCheck {
  const cache = new WeakMap<object, readonly HeaderMark[]>();
  return (inputSchema, args, headers) => {
    if (!isObject(inputSchema)) return;
    let marks = cache.get(inputSchema);
    if (!marks) {
      marks = marksOf(inputSchema);
      cache.set(inputSchema, marks);
    }
    checkMarks(marks, args, headers);
  };
}

/** {@link createParamHeaderCheck}'s check, without a cache (tests, one-off checks). */
export function checkParamHeaders(
  inputSchema: unknown,
  args: Record<string, unknown>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): void {
  if (isObject(inputSchema)) checkMarks(marksOf(inputSchema), args, headers);
}

function checkMarks(
  marks: readonly HeaderMark[],
  args: Record<string, unknown>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): void {
  for (const mark of marks) {
    let value: unknown = args;
    for (const key of mark.path) value = isObject(value) ? value[key] : undefined;
    const headerName = `mcp-param-${mark.name.toLowerCase()}`;
    const header = headers[headerName];
    if (value === undefined || value === null) continue;
    const refuse = (why: string) => {
      throw new ProtocolError(
        ModernErrorCode.HeaderMismatch,
        `Header mismatch: Mcp-Param-${mark.name} ${why} (argument '${mark.path.join(".")}')`,
      );
    };
    if (typeof header !== "string") refuse("is required: the argument is in the body");
    const decoded = decode(header as string);
    if (decoded === undefined)
      refuse("is malformed (not visible ASCII, or not padded Base64 in its =?base64?…?= form)");
    if (!sameValue(decoded as string, value)) refuse("does not match the argument in the body");
  }
}
