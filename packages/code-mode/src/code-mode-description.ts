import type { CodeModeTool } from "./code-mode-tool.js";
import { literal } from "./doc-text.js";
import { toolIdentifiers } from "./identifiers.js";

/** Where a namespace publishes its stubs, for {@link codeModeDescription}. */
export interface CodeModeDescriptionOptions {
  /** The URI of the TypeScript declarations resource, e.g. `trestle://tools/sales.d.ts`. */
  typescriptUri: string;
  /** The URI of the Python stub resource, when Python is offered. */
  pythonUri?: string;
  /** The namespace's tools, to take the example from; the first by identifier is used. */
  tools: readonly CodeModeTool[];
}

/**
 * The sentences `execute_code`'s description gains in code mode: where the typed API of the tools is, and a
 * two-line example calling the first tool.
 *
 * @example
 * ```ts
 * description += " " + codeModeDescription({ typescriptUri: "trestle://tools/sales.d.ts", tools });
 * ```
 */
export function codeModeDescription(options: CodeModeDescriptionOptions): string {
  const identifiers = [...toolIdentifiers(options.tools.map((t) => t.name)).values()].sort();
  const first = identifiers[0] ?? "some_tool";
  const where = options.pythonUri
    ? `read the resource ${literal(options.typescriptUri)} (TypeScript) or ${literal(options.pythonUri)} (Python)`
    : `read the resource ${literal(options.typescriptUri)}`;
  return (
    `Programs get a \`tools\` object that calls this server's tools (for their names and types, ${where}). ` +
    "A call returns the tool's structured result, else its text, and throws ToolError when the tool fails. " +
    `Example (JavaScript):\nconst result = await tools.${first}({ /* arguments */ });\nconsole.log(result);`
  );
}
