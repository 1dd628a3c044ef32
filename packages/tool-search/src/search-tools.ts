import { Code, TrestleError } from "@trestle/core";

/** An MCP tool definition, as `tools/list` lists it (the fields this package fills). */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, object>; required?: string[] };
  outputSchema?: { type: "object"; properties: Record<string, object>; required?: string[] };
  annotations?: { readOnlyHint?: boolean; openWorldHint?: boolean };
}

/** The name of the tool that searches a namespace's tools. */
export const SEARCH_TOOLS_NAME = "search_tools";
/** The name of the tool that calls a tool found by searching. */
export const CALL_TOOL_NAME = "call_tool";

/** Options of {@link searchToolsDefinition} and {@link parseSearchToolsArguments}. */
export interface SearchToolsOptions {
  /** Results when the call gives no `limit`. Default 10. */
  defaultLimit?: number;
  /** Most results a call may ask for; a larger `limit` is lowered to it. Default 50 (the index's default). */
  maxLimit?: number;
  /** Longest `query` accepted, in characters. Default 1,000 (the index's default). */
  maxQueryLength?: number;
}

/** Arguments of a `search_tools` call, checked. */
export interface SearchToolsArguments {
  query: string;
  limit: number;
}

/** Arguments of a `call_tool` call, checked. */
export interface CallToolArguments {
  /** The tool to call, as `search_tools` returned it. */
  name: string;
  arguments: Record<string, unknown>;
}

function limits(options: SearchToolsOptions): Required<SearchToolsOptions> {
  return {
    defaultLimit: options.defaultLimit ?? 10,
    maxLimit: options.maxLimit ?? 50,
    maxQueryLength: options.maxQueryLength ?? 1000,
  };
}

/**
 * The `search_tools` tool a namespace lists instead of its tools when tool search is on. Its result's
 * `structuredContent` is `{ tools: [...] }`, best first, each tool as `tools/list` would list it.
 */
export function searchToolsDefinition(options: SearchToolsOptions = {}): McpToolDefinition {
  const { defaultLimit, maxLimit, maxQueryLength } = limits(options);
  return {
    name: SEARCH_TOOLS_NAME,
    title: "Search tools",
    description:
      "Finds this server's tools by what they do. It has more tools than it lists: describe the task in a few " +
      "words (e.g. 'open a Jira ticket', 'refund a Stripe payment') and get the best matches, best first, each " +
      `with its name, description and input schema. Then call one with ${CALL_TOOL_NAME}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          minLength: 1,
          maxLength: maxQueryLength,
          description: "What the tool should do",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: maxLimit,
          default: defaultLimit,
          description: "How many tools to return at most",
        },
      },
      required: ["query"],
    },
    outputSchema: {
      type: "object",
      properties: {
        tools: { type: "array", items: { type: "object" }, description: "Matching tools, best first" },
      },
      required: ["tools"],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

/** The `call_tool` tool: calls a tool that `search_tools` found, by name. */
export function callToolDefinition(): McpToolDefinition {
  return {
    name: CALL_TOOL_NAME,
    title: "Call a tool",
    description:
      `Calls one of this server's tools by its name, as ${SEARCH_TOOLS_NAME} returned it, with arguments that ` +
      "match its input schema. Returns that tool's result.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, description: "The tool's name" },
        arguments: { type: "object", description: "The tool's arguments", additionalProperties: true },
      },
      required: ["name"],
    },
  };
}

function invalid(message: string): TrestleError {
  return new TrestleError(message, Code.InvalidArgument);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks the arguments of a `search_tools` call: `query` a non-empty string within the length limit, `limit`
 * absent (the default) or a positive integer (lowered to the maximum).
 *
 * @throws TrestleError `InvalidArgument` saying which argument is wrong.
 */
export function parseSearchToolsArguments(
  args: unknown,
  options: SearchToolsOptions = {},
): SearchToolsArguments {
  const { defaultLimit, maxLimit, maxQueryLength } = limits(options);
  if (!isPlainObject(args)) throw invalid(`${SEARCH_TOOLS_NAME} takes an object of arguments`);
  const { query, limit } = args;
  if (typeof query !== "string" || query.trim() === "")
    throw invalid(`'query' must be a non-empty string saying what the tool should do`);
  if (query.length > maxQueryLength)
    throw invalid(`'query' has ${query.length} characters; at most ${maxQueryLength} are allowed`);
  if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1))
    throw invalid(`'limit' must be a positive integer`);
  return { query, limit: Math.min(limit ?? defaultLimit, maxLimit) };
}

/**
 * Checks the arguments of a `call_tool` call: `name` a non-empty string, `arguments` absent (none) or an object.
 * Whether the tool exists and the caller may call it is for the router to decide, as for any call.
 *
 * @throws TrestleError `InvalidArgument` saying which argument is wrong.
 */
export function parseCallToolArguments(args: unknown): CallToolArguments {
  if (!isPlainObject(args)) throw invalid(`${CALL_TOOL_NAME} takes an object of arguments`);
  const { name, arguments: toolArguments } = args;
  if (typeof name !== "string" || name === "") throw invalid(`'name' must be the name of a tool`);
  if (toolArguments !== undefined && !isPlainObject(toolArguments))
    throw invalid(`'arguments' must be an object of the tool's arguments`);
  return { name, arguments: toolArguments ?? {} };
}

/**
 * The result of a `search_tools` call: `structuredContent` `{ tools }` (each as `tools/list` would list it, in
 * the order given) and the same JSON as text, for clients that read only text.
 */
export function searchToolsResult<T extends object>(
  tools: readonly T[],
): { content: [{ type: "text"; text: string }]; structuredContent: { tools: T[] } } {
  const structuredContent = { tools: [...tools] };
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
}
