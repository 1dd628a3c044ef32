import type { SchemaTypeLimits } from "./schema-types.js";

/**
 * A tool as code mode reads it: what MCP `tools/list` shows a client. Pass the tools as the principal may see
 * them (after the list policy, and after the router's listing removed routing keywords and secret defaults):
 * the stubs and the preludes show everything given here to the program and the agent.
 */
export interface CodeModeTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  /** A JSON Schema of the arguments object. */
  inputSchema?: object | undefined;
  /** A JSON Schema of the tool's `structuredContent`, when it declares one. */
  outputSchema?: object | undefined;
}

/** Options shared by the stub generators. */
export interface StubOptions {
  /** What the header calls this set of tools, e.g. the namespace's name. Default "this server". */
  label?: string;
  /** Characters of a tool's description kept in its doc comment. Default 2,000. */
  maxDescriptionLength?: number;
  /** Bounds on each schema's conversion to a type (depth 8, 2,000 nodes, 500-character property docs). */
  schemaLimits?: Partial<SchemaTypeLimits>;
}

/** The limits of {@link StubOptions} with their defaults filled in. */
export function stubLimits(options: StubOptions): { maxDescriptionLength: number; schema: SchemaTypeLimits } {
  return {
    maxDescriptionLength: options.maxDescriptionLength ?? 2000,
    schema: {
      maxDepth: options.schemaLimits?.maxDepth ?? 8,
      maxNodes: options.schemaLimits?.maxNodes ?? 2000,
      maxDescriptionLength: options.schemaLimits?.maxDescriptionLength ?? 500,
    },
  };
}

/** The sentence both stubs use for what a call returns. */
export const RESULT_RULE =
  "A call returns the tool's structuredContent when it has one, else its text content (text blocks joined with " +
  "newlines); a call the tool reports as failed throws ToolError with the tool's error text.";
