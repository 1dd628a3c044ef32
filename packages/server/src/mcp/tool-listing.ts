import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolReference } from "@trestle/core";
import type { InputSchema } from "@trestle/core/catalog";
import { isSecretArgumentKey, isSecretHeaderKey } from "@trestle/core/redaction";

/** Wanaku's routing keywords: they steer the router, and are not JSON Schema a client should see. */
const ROUTING_KEYWORDS = new Set(["target", "scope", "value"]);

/**
 * The JSON Schema a client sees for a tool: Wanaku's routing keywords removed from each property, a property's
 * `value` offered as its `default` unless the property's name looks like a credential (a default
 * `Authorization` header must not reach clients).
 */
export function clientInputSchema(schema: InputSchema | undefined): Tool["inputSchema"] {
  if (!schema) return { type: "object", properties: {} };
  const properties: Record<string, object> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const visible: Record<string, unknown> = {};
    for (const [keyword, v] of Object.entries(property))
      if (!ROUTING_KEYWORDS.has(keyword)) visible[keyword] = v;
    const secret = isSecretHeaderKey(name) || isSecretArgumentKey(name);
    if (secret) delete visible.default;
    else if (property.value !== undefined && visible.default === undefined) visible.default = property.value;
    properties[name] = visible;
  }
  const { properties: _p, ...rest } = schema;
  return { ...rest, type: "object", properties } as Tool["inputSchema"];
}

/** A catalog tool as an MCP `Tool`. */
export function toMcpTool(tool: ToolReference): Tool {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: clientInputSchema(tool.inputSchema),
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool["outputSchema"] } : {}),
    ...(tool.annotations ? { annotations: tool.annotations as Tool["annotations"] } : {}),
  };
}
