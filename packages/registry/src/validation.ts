import { Code, TrestleError } from "@trestle/core";
import type { z } from "zod";

const MAX_ISSUES_SHOWN = 5;

function hasNulCharacter(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (depth > 64 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((v) => hasNulCharacter(v, depth + 1));
  for (const [k, v] of Object.entries(value)) {
    if (k.includes("\u0000") || hasNulCharacter(v, depth + 1)) return true;
  }
  return false;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(the whole value)" : out;
}

/**
 * Validates `input` with `schema` and returns the parsed value, or throws one `InvalidArgument` error that
 * names every bad field (the first few) so a client can fix them all at once.
 *
 * It also refuses values whose JSON text exceeds `maxBytes`, and NUL characters anywhere (PostgreSQL cannot
 * store them), before they reach the database.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  maxBytes: number,
): z.output<S> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new TrestleError(
      `Invalid ${what}: expected a JSON object, got ${input === null ? "null" : Array.isArray(input) ? "an array" : typeof input}`,
      Code.InvalidArgument,
    );
  }
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(input), "utf8");
  } catch {
    throw new TrestleError(`Invalid ${what}: it cannot be represented as JSON`, Code.InvalidArgument);
  }
  if (size > maxBytes) {
    throw new TrestleError(
      `Invalid ${what}: it is ${size} bytes as JSON, more than the ${maxBytes} allowed`,
      Code.InvalidArgument,
    );
  }
  if (hasNulCharacter(input)) {
    throw new TrestleError(`Invalid ${what}: text must not contain NUL characters`, Code.InvalidArgument);
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const shown = issues
    .slice(0, MAX_ISSUES_SHOWN)
    .map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  const more = issues.length > MAX_ISSUES_SHOWN ? ` (and ${issues.length - MAX_ISSUES_SHOWN} more)` : "";
  throw new TrestleError(`Invalid ${what}: ${shown.join("; ")}${more}`, Code.InvalidArgument);
}
