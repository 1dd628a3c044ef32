import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type { PromptReference } from "@trestle/core";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ProtocolError } from "./protocol-error.js";

/**
 * Expands a prompt for `prompts/get`: `{{name}}` in text content becomes the argument `name` (unknown
 * placeholders stay as they are).
 * @throws ProtocolError InvalidParams when a required argument is missing.
 */
export function expandPrompt(prompt: PromptReference, args: Record<string, string>): GetPromptResult {
  const missing = (prompt.arguments ?? [])
    .filter((a) => a.required && args[a.name] === undefined)
    .map((a) => a.name);
  if (missing.length > 0) {
    throw new ProtocolError(
      JsonRpcErrorCode.InvalidParams,
      `Prompt '${prompt.name}' needs argument(s): ${missing.join(", ")}`,
    );
  }
  const fill = (text: string) =>
    text.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, name: string) => args[name] ?? whole);
  return {
    ...(prompt.description ? { description: prompt.description } : {}),
    messages: prompt.messages.map((m) => ({
      role: m.role,
      content: m.content.type === "text" ? { type: "text", text: fill(m.content.text) } : m.content,
    })) as GetPromptResult["messages"],
  };
}
