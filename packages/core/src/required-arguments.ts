import type { ToolReference } from "./catalog.js";
import { Code, TrestleError } from "./error.js";

function isPresent(value: unknown): boolean {
  return value !== null && value !== undefined;
}

/**
 * Checks that every name in the tool's `inputSchema.required` is present among `args`, a `null` value counting as
 * absent (Wanaku contract §4.1, and what JSON Schema's `required` asks of any protocol's arguments).
 *
 * @throws TrestleError `InvalidArgument` with "Missing required parameter(s): a, b".
 */
export function validateRequiredArguments(
  args: Readonly<Record<string, unknown>>,
  tool: ToolReference,
): void {
  const required = tool.inputSchema?.required;
  if (required === undefined || required.length === 0) return;
  // Every call passes through here: the list of the missing is built only when one is.
  let missing: string[] | undefined;
  for (const name of required) {
    if (Object.hasOwn(args, name) && isPresent(args[name])) continue;
    if (missing) missing.push(name);
    else missing = [name];
  }
  if (missing) {
    throw new TrestleError(`Missing required parameter(s): ${missing.join(", ")}`, Code.InvalidArgument);
  }
}
