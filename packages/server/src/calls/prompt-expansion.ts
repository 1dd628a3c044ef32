import {
  Code,
  type ContentBlock,
  type PromptReference,
  type PromptResult,
  TrestleError,
} from "@trestle/core";
import type { PromptContent } from "@trestle/core/catalog";

/** A catalog prompt's content as a content block (an embedded resource carries its text or its blob). */
function contentBlock(content: PromptContent): ContentBlock {
  if (content.type !== "resource") return content;
  const { uri, mimeType, text, blob } = content.resource;
  const mime = mimeType !== undefined ? { mimeType } : {};
  return {
    type: "resource",
    resource: blob !== undefined ? { uri, ...mime, blob } : { uri, ...mime, text: text ?? "" },
  };
}

/**
 * Expands a catalog prompt: `{{name}}` in text content becomes the argument `name` (unknown placeholders stay as
 * they are).
 * @throws TrestleError `InvalidArgument` when a required argument is missing.
 */
export function expandPrompt(prompt: PromptReference, args: Record<string, string>): PromptResult {
  const missing = (prompt.arguments ?? [])
    .filter((a) => a.required && args[a.name] === undefined)
    .map((a) => a.name);
  if (missing.length > 0) {
    throw new TrestleError(
      `Prompt '${prompt.name}' needs argument(s): ${missing.join(", ")}`,
      Code.InvalidArgument,
    );
  }
  const fill = (text: string) =>
    text.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, name: string) => args[name] ?? whole);
  return {
    ...(prompt.description ? { description: prompt.description } : {}),
    messages: prompt.messages.map((m) => ({
      role: m.role,
      content:
        m.content.type === "text" ? { type: "text", text: fill(m.content.text) } : contentBlock(m.content),
    })),
  };
}
