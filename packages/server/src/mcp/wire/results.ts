/**
 * The results a front answers with, per revision: `tools/call`, `prompts/get`, `resources/read` and
 * `completion/complete`. Each has one typed step from the call service's neutral result (`encodeToolResult`,
 * `encodePromptResult`) or from the newest wire shape (`encodeCallToolResult`, …) to the shape of the client's
 * revision, with a note for each thing that did not carry over. When nothing needs changing, the same object comes
 * back with the shared empty notes: a tool result for a 2025-11-25 or 2026-07-28 client is never copied here.
 */
import type { PromptResult, ToolResult, TranslationNote } from "@trestle/core";
import { blockFits, contentFits, encodeContent, encodeContentBlock } from "./content.js";
import { type Encoded, finish, isPlainObject, mapSame, NO_NOTES, note, omit } from "./encoded.js";
import { encodeEnvelope } from "./envelope.js";
import { findJsonText } from "./json-text.js";
import { features, type McpRevision } from "./revisions.js";
import type {
  CallToolResultIn,
  CompleteResultIn,
  GetPromptResultIn,
  McpCallToolResult,
  McpCompleteResult,
  McpGetPromptResult,
  McpReadResourceResult,
  ReadResourceResultIn,
} from "./types.js";

/**
 * Encodes a `tools/call` result in the newest shape for `revision`.
 *
 * Structured content the revision cannot carry (none before 2025-06-18; anything but a JSON object before
 * 2026-07-28) is dropped, and its JSON text is appended to `content` unless a text block already holds the same
 * JSON (the spec asks servers to send both). Content blocks as `content.ts` says.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision, or a `resultType` other than `complete` for a
 *   revision before 2026-07-28.
 */
export function encodeCallToolResult<R extends McpRevision>(
  result: McpCallToolResult,
  revision: R,
): Encoded<CallToolResultIn<R>>;
export function encodeCallToolResult(
  result: McpCallToolResult,
  revision: McpRevision,
): Encoded<McpCallToolResult> {
  const f = features(revision);
  const structured = result.structuredContent;
  // The common path: nothing to translate, no notes to collect.
  if (
    (structured === undefined ||
      f.structuredContent === "any" ||
      (f.structuredContent === "object" && isPlainObject(structured))) &&
    contentFits(result.content, f)
  ) {
    return { value: encodeEnvelope(result, f, false), notes: NO_NOTES };
  }
  const notes: TranslationNote[] = [];
  let content = encodeContent(result.content, f, "content", notes);
  let dropStructured = false;
  if (structured !== undefined && f.structuredContent !== "any") {
    if (f.structuredContent === "none" || !isPlainObject(structured)) {
      dropStructured = true;
      const why =
        f.structuredContent === "none"
          ? `MCP revision ${f.revision} has no structuredContent`
          : `MCP revision ${f.revision} allows only a JSON object as structuredContent`;
      const found = findJsonText(content, structured);
      if (found >= 0) {
        note(notes, "dropped", "structuredContent", `${why}; the same JSON is in content[${found}] as text`);
      } else {
        note(
          notes,
          "rewritten",
          "structuredContent",
          `${why}; carried as JSON text in content[${content.length}]`,
        );
        content = [...content, { type: "text", text: JSON.stringify(structured) }];
      }
    }
  }
  let out = result;
  if (content !== result.content || dropStructured) {
    out = dropStructured ? omit(result, ["structuredContent"]) : { ...result };
    out.content = content;
  }
  return finish(encodeEnvelope(out, f, false), notes);
}

/**
 * The front's one step from the call service's tool result to the `tools/call` result of the client's revision
 * (as {@link encodeCallToolResult}). A result that still asks for input is the front's to answer in its client's
 * own way, before this: `inputRequired` is not a wire field, and is left out here.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeToolResult<R extends McpRevision>(
  result: ToolResult,
  revision: R,
): Encoded<CallToolResultIn<R>>;
export function encodeToolResult(result: ToolResult, revision: McpRevision): Encoded<McpCallToolResult> {
  if (result.inputRequired === undefined) return encodeCallToolResult(result, revision);
  const { inputRequired: _, ...answer } = result;
  return encodeCallToolResult(answer, revision);
}

/**
 * Encodes a `prompts/get` result in the newest shape for `revision`: each message's content block as in
 * {@link encodeCallToolResult}.
 *
 * @throws TrestleError as {@link encodeCallToolResult}.
 */
export function encodeGetPromptResult<R extends McpRevision>(
  result: McpGetPromptResult,
  revision: R,
): Encoded<GetPromptResultIn<R>>;
export function encodeGetPromptResult(
  result: McpGetPromptResult,
  revision: McpRevision,
): Encoded<McpGetPromptResult> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  const messages = mapSame(result.messages, (message, index) => {
    if (blockFits(message.content, f)) return message;
    const content = encodeContentBlock(message.content, f, `messages[${index}].content`, notes);
    return { ...message, content };
  });
  const out = messages === result.messages ? result : { ...result, messages };
  return finish(encodeEnvelope(out, f, false), notes);
}

/**
 * The front's one step from the call service's prompt result to the `prompts/get` result of the client's
 * revision (as {@link encodeGetPromptResult}); `inputRequired`, the front's to answer before this, is left out.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodePromptResult<R extends McpRevision>(
  result: PromptResult,
  revision: R,
): Encoded<GetPromptResultIn<R>>;
export function encodePromptResult(result: PromptResult, revision: McpRevision): Encoded<McpGetPromptResult> {
  if (result.inputRequired === undefined) return encodeGetPromptResult(result, revision);
  const { inputRequired: _, ...answer } = result;
  return encodeGetPromptResult(answer, revision);
}

/**
 * Encodes a `resources/read` result for `revision`: `_meta` on contents dropped before 2025-06-18; for
 * 2026-07-28, `ttlMs`/`cacheScope` filled with `0`/`"private"` when absent.
 *
 * @throws TrestleError as {@link encodeCallToolResult}.
 */
export function encodeReadResourceResult<R extends McpRevision>(
  result: McpReadResourceResult,
  revision: R,
): Encoded<ReadResourceResultIn<R>>;
export function encodeReadResourceResult(
  result: McpReadResourceResult,
  revision: McpRevision,
): Encoded<McpReadResourceResult> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  const contents = f.nestedMeta
    ? result.contents
    : mapSame(result.contents, (item, index) => {
        if (item._meta === undefined) return item;
        note(notes, "dropped", `contents[${index}] _meta`, `MCP revision ${f.revision} has no _meta here`);
        return omit(item, ["_meta"]);
      });
  const out = contents === result.contents ? result : { ...result, contents };
  return finish(encodeEnvelope(out, f, true), notes);
}

/** The most values a completion may list (every revision says so; 2026-07-28's schema enforces it). */
const MAX_COMPLETION_VALUES = 100;

/**
 * Encodes a `completion/complete` result for `revision`: more than 100 values are cut to 100 with
 * `hasMore: true` (noted as approximated).
 *
 * @throws TrestleError as {@link encodeCallToolResult}.
 */
export function encodeCompleteResult<R extends McpRevision>(
  result: McpCompleteResult,
  revision: R,
): Encoded<CompleteResultIn<R>>;
export function encodeCompleteResult(
  result: McpCompleteResult,
  revision: McpRevision,
): Encoded<McpCompleteResult> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  let out = result;
  const values = result.completion.values;
  if (values.length > MAX_COMPLETION_VALUES) {
    note(
      notes,
      "approximated",
      "completion.values",
      `${values.length} values cut to the first ${MAX_COMPLETION_VALUES}; hasMore set`,
    );
    out = {
      ...result,
      completion: { ...result.completion, values: values.slice(0, MAX_COMPLETION_VALUES), hasMore: true },
    };
  }
  return finish(encodeEnvelope(out, f, false), notes);
}
