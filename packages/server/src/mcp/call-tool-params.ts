import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";

/** The `_meta` key the SDK's schema checks besides `progressToken`. */
const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The common shape of a `tools/call` request checked without the schema library, on the hot path: a `name`,
 * `arguments` that are an object when present, a `_meta` whose `progressToken` is a string or a safe integer when
 * present, and no `task` or related-task marker. Returns the request as the SDK's `CallToolRequestSchema` would
 * parse it (its known fields, the same values), or undefined for anything else — which the schema then checks
 * and words the error for. It accepts nothing the schema refuses.
 */
export function acceptCommonToolCall(request: {
  method: string;
  params?: unknown;
}): CallToolRequest | undefined {
  const params = request.params;
  if (!isPlainObject(params) || typeof params.name !== "string" || params.task !== undefined)
    return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const meta = params._meta;
  if (meta !== undefined) {
    if (!isPlainObject(meta) || meta[RELATED_TASK_META_KEY] !== undefined) return undefined;
    const token = meta.progressToken;
    if (token !== undefined && typeof token !== "string" && !Number.isSafeInteger(token)) return undefined;
  }
  const accepted: CallToolRequest["params"] = { name: params.name };
  if (args !== undefined) accepted.arguments = args;
  if (meta !== undefined) accepted._meta = meta as CallToolRequest["params"]["_meta"];
  return { method: "tools/call", params: accepted };
}
