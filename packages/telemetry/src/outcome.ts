import { codeToString, TrestleError } from "@trestle/core";

/** The outcome of a call that returned: `tool_error` for a result marked `isError` (as the MCP conventions name it), else `ok`. */
export function resultOutcome(result: unknown): "ok" | "tool_error" {
  return typeof result === "object" && result !== null && (result as { isError?: unknown }).isError === true
    ? "tool_error"
    : "ok";
}

/** The outcome of a call that failed: its error's code in snake case (`unavailable`, `deadline_exceeded`, …). */
export function errorOutcome(error: unknown): string {
  return codeToString(TrestleError.from(error).code);
}
