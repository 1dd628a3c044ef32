import { create } from "@bufbuild/protobuf";
import { Code, stringifyArgument, TrestleError } from "@trestle/core";
import { type ToolInvokeRequest, ToolInvokeRequestSchema } from "@trestle/proto";
import { mcpToolUri } from "./tool-uri.js";

/** What {@link buildMcpToolRequest} needs. */
export interface McpToolRequestInit {
  /** The forward's name (first part of the tool URI). */
  forward: string;
  /** The tool's name on the upstream server. */
  toolName: string;
  /** The MCP call's arguments, with their original JSON types. */
  arguments?: Record<string, unknown>;
  /** The MCP request id, sent as `request_id`. */
  requestId?: string;
}

/**
 * Builds the `ToolInvokeRequest` for calling an upstream MCP tool through the MCP transport.
 *
 * How typed arguments travel: `ToolInvokeRequest.arguments` is `map<string, string>`, so the original JSON
 * arguments object goes in `body` as JSON text (`body = JSON.stringify(arguments)`), and that is what the
 * transport sends as the `tools/call` arguments, numbers, booleans, objects, arrays and nulls intact.
 * `arguments` is filled as well, with every non-null value as text, so that anything reading the request the
 * way it reads a gRPC one (events, logs after redaction) sees the same values. A request with an empty `body`
 * sends its `arguments` map, all strings.
 *
 * @throws TrestleError `InvalidArgument` when the arguments cannot be written as JSON (a cycle, a bigint).
 *
 * @example
 * ```ts
 * const request = buildMcpToolRequest({ forward: "everything", toolName: "get-sum", arguments: { a: 1, b: 2 } });
 * const reply = await transport.invokeTool(request, target);
 * ```
 */
export function buildMcpToolRequest(init: McpToolRequestInit): ToolInvokeRequest {
  const args = init.arguments ?? {};
  let body: string;
  const text: Record<string, string> = {};
  try {
    body = JSON.stringify(args);
    for (const [name, value] of Object.entries(args)) {
      if (value !== null && value !== undefined) text[name] = stringifyArgument(value);
    }
  } catch (error) {
    throw new TrestleError(
      `The arguments of tool '${init.toolName}' cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`,
      Code.InvalidArgument,
    );
  }
  return create(ToolInvokeRequestSchema, {
    uri: mcpToolUri(init.forward, init.toolName),
    body,
    arguments: text,
    requestId: init.requestId ?? "",
  });
}

/**
 * The `tools/call` arguments a request carries: its `body` parsed as a JSON object when the body is not
 * empty, else its `arguments` map (all strings).
 *
 * @throws TrestleError `InvalidArgument` when `body` is not a JSON object.
 */
export function mcpToolArguments(
  request: Pick<ToolInvokeRequest, "body" | "arguments">,
): Record<string, unknown> {
  if (request.body === "") return { ...request.arguments };
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body);
  } catch {
    throw new TrestleError(
      "The body of an MCP tool request must be the call's arguments as a JSON object, and it is not JSON",
      Code.InvalidArgument,
    );
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new TrestleError(
      "The body of an MCP tool request must be the call's arguments as a JSON object",
      Code.InvalidArgument,
    );
  }
  return parsed as Record<string, unknown>;
}
