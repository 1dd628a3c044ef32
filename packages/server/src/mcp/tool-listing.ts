import type { JsonValue, ToolReference } from "@trestle/core";
import type { InputSchema } from "@trestle/core/catalog";
import { isSecretArgumentKey, isSecretHeaderKey } from "@trestle/core/redaction";
import type { McpTool } from "./wire/types.js";

/** Wanaku's routing keywords: they steer the router, and are not JSON Schema a client should see. */
const ROUTING_KEYWORDS = new Set(["target", "scope", "value"]);

/** The hints MCP tool annotations define (every revision that has annotations), besides `title`. */
const TOOL_HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** A property schema's keywords: JSON, as the catalog stored them (its type says only `unknown`). */
function jsonKeywords(property: Record<string, unknown>): { [keyword: string]: JsonValue } {
  const visible: { [keyword: string]: JsonValue } = {};
  for (const [keyword, value] of Object.entries(property)) {
    if (!ROUTING_KEYWORDS.has(keyword) && isJson(value)) visible[keyword] = value;
  }
  return visible;
}

/** Whether `value` is JSON: what a catalog entry read from JSON holds, checked rather than assumed. */
function isJson(value: unknown): value is JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value !== "object") return false;
  for (const item of Object.values(value)) if (!isJson(item)) return false;
  return true;
}

/**
 * The JSON Schema a client sees for a tool: Wanaku's routing keywords removed from each property, a property's
 * `value` offered as its `default` unless the property's name looks like a credential (a default
 * `Authorization` header must not reach clients).
 */
export function clientInputSchema(schema: InputSchema | undefined): McpTool["inputSchema"] {
  if (!schema) return { type: "object", properties: {} };
  const properties: { [name: string]: JsonValue } = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const visible = jsonKeywords(property);
    const secret = isSecretHeaderKey(name) || isSecretArgumentKey(name);
    if (secret) delete visible.default;
    else if (property.value !== undefined && visible.default === undefined) visible.default = property.value;
    properties[name] = visible;
  }
  const { properties: _p, ...rest } = schema;
  return { ...rest, type: "object", properties };
}

/** A catalog tool's annotations as MCP defines them: the title and the hints, each of its own type. */
function toolAnnotations(annotations: Record<string, unknown>): NonNullable<McpTool["annotations"]> {
  const out: NonNullable<McpTool["annotations"]> = {};
  if (typeof annotations.title === "string") out.title = annotations.title;
  for (const hint of TOOL_HINTS) {
    const value = annotations[hint];
    if (typeof value === "boolean") out[hint] = value;
  }
  return out;
}

/** A catalog tool as an MCP `Tool`, in the newest shapes (each client's revision is the encoder's business). */
export function toMcpTool(tool: ToolReference): McpTool {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: clientInputSchema(tool.inputSchema),
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: toolAnnotations(tool.annotations) } : {}),
  };
}
