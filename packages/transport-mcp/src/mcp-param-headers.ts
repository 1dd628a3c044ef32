import type { JsonObject } from "@trestle/core";

/**
 * MCP 2026-07-28 over Streamable HTTP: a tool's input schema may mark arguments with `x-mcp-header: <Name>`, and a
 * client must mirror their values into `Mcp-Param-<Name>` headers (servers reject a call that omits them), and
 * must not offer a tool whose marks break the rules.
 */

/** One marked argument: the header's name part, the `properties` path to the argument. */
interface HeaderMark {
  name: string;
  path: string[];
}

/** RFC 9110 `tchar`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SENTINEL = /^=\?base64\?.*\?=$/s;
const PRIMITIVES = new Set(["string", "integer", "boolean"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The marks of a schema, or the reason they are invalid. */
function marksOf(schema: unknown): { marks: HeaderMark[] } | { invalid: string } {
  const marks: HeaderMark[] = [];
  let invalid: string | undefined;
  const walk = (node: unknown, reachable: boolean, path: string[]): void => {
    if (invalid !== undefined) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, false, path);
      return;
    }
    if (!isObject(node)) return;
    if ("x-mcp-header" in node) {
      const name = node["x-mcp-header"];
      if (!reachable || path.length === 0) {
        invalid = "an x-mcp-header is not reachable from the schema root through properties alone";
        return;
      }
      if (typeof name !== "string" || !TOKEN.test(name)) {
        invalid = `the x-mcp-header of '${path.join(".")}' is not an HTTP field-name token`;
        return;
      }
      if (typeof node.type !== "string" || !PRIMITIVES.has(node.type)) {
        invalid = `the x-mcp-header of '${path.join(".")}' marks a parameter that is not a string, integer or boolean`;
        return;
      }
      if (marks.some((mark) => mark.name.toLowerCase() === name.toLowerCase())) {
        invalid = `the x-mcp-header '${name}' is used twice`;
        return;
      }
      marks.push({ name, path });
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === "properties" && isObject(child)) {
        for (const [property, sub] of Object.entries(child)) walk(sub, reachable, [...path, property]);
      } else if (typeof child === "object" && child !== null) {
        walk(child, false, path);
      }
    }
  };
  walk(schema, true, []);
  return invalid !== undefined ? { invalid } : { marks };
}

/**
 * Why a tool's `x-mcp-header` marks are invalid (then it must not be offered), or `undefined` when they are
 * valid or absent.
 */
export function invalidMcpHeaderReason(inputSchema: unknown): string | undefined {
  if (!JSON.stringify(inputSchema ?? null).includes('"x-mcp-header"')) return undefined;
  const found = marksOf(inputSchema);
  return "invalid" in found ? found.invalid : undefined;
}

/**
 * A header value: as it is when it is visible ASCII with no surrounding space, else (and when it looks like the
 * sentinel itself) `=?base64?<UTF-8 as Base64>?=`.
 */
export function mcpHeaderValue(value: string): string {
  const plain = /^[\x20-\x7e\t]*$/.test(value) && value.trim() === value && !SENTINEL.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/**
 * The `Mcp-Param-<Name>` headers of a call of a tool with `inputSchema` and `args`: one per marked argument that
 * has a value (string as it is, integer in decimal, boolean as `true`/`false`); none for an absent or null one.
 * Empty when the schema has no marks or invalid ones.
 */
export function mcpParamHeaders(inputSchema: unknown, args: JsonObject): Record<string, string> {
  if (inputSchema === undefined || !JSON.stringify(inputSchema).includes('"x-mcp-header"')) return {};
  const found = marksOf(inputSchema);
  if ("invalid" in found) return {};
  const headers: Record<string, string> = {};
  for (const mark of found.marks) {
    let value: unknown = args;
    for (const key of mark.path) value = isObject(value) ? value[key] : undefined;
    let text: string | undefined;
    if (typeof value === "string") text = value;
    else if (typeof value === "number" && Number.isSafeInteger(value)) text = String(value);
    else if (typeof value === "boolean") text = value ? "true" : "false";
    if (text !== undefined) headers[`mcp-param-${mark.name.toLowerCase()}`] = mcpHeaderValue(text);
  }
  return headers;
}
