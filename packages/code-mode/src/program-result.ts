/**
 * A tool's result as the router holds it: MCP's `CallToolResult`, or `@trestle/core`'s `ToolResult` (both fit).
 */
export interface ToolResultLike {
  content?: readonly { type: string; text?: string }[] | undefined;
  structuredContent?: unknown;
  isError?: boolean | undefined;
}

/** What a call returns in the program, or the error it throws there. */
export type ProgramOutcome = { result: unknown } | { error: { message: string } };

/** Text blocks of a result, joined with newlines; other blocks (images, audio, resources) are not passed on. */
function textOf(result: ToolResultLike): string {
  return (result.content ?? [])
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

/**
 * The result rule of code mode: a call returns the tool's `structuredContent` when it has one, else its text
 * content (text blocks joined with newlines, "" when there are none); a result with `isError` makes the call
 * throw `ToolError` with the result's text (or "the tool '<name>' reported an error" when it has none).
 */
export function programOutcome(toolName: string, result: ToolResultLike): ProgramOutcome {
  if (result.isError)
    return { error: { message: textOf(result) || `the tool '${toolName}' reported an error` } };
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return { result: result.structuredContent };
  return { result: textOf(result) };
}
