import type {
  BlobResourceContents,
  CallToolResult,
  ContentBlock,
  ReadResourceResult,
  TextResourceContents,
} from "@modelcontextprotocol/sdk/types.js";
import { Code, TrestleError } from "@trestle/core";

/**
 * The prefix of a reply `content` string that holds a JSON-encoded MCP value rather than plain text. Plain text
 * that happens to start with it is encoded too, so decoding is exact for every string.
 */
export const MCP_CONTENT_MARKER = "trestle:mcp-content:";

/** A tool's structured result (`CallToolResult.structuredContent`), as it travels among the content strings. */
export interface EncodedStructuredContent {
  structuredContent: Record<string, unknown>;
}

/** Resource contents as `resources/read` returns them: text or Base64 blob. */
export type McpResourceContents = TextResourceContents | BlobResourceContents;

function encode(value: unknown): string {
  return MCP_CONTENT_MARKER + JSON.stringify(value);
}

function decode(entry: string): unknown {
  try {
    return JSON.parse(entry.slice(MCP_CONTENT_MARKER.length));
  } catch {
    throw new TrestleError(
      "A reply content string carries the MCP content marker but no valid JSON after it",
      Code.DataLoss,
    );
  }
}

function isBareText(block: ContentBlock): block is { type: "text"; text: string } {
  return (
    block.type === "text" &&
    Object.keys(block).every((key) => key === "type" || key === "text") &&
    !block.text.startsWith(MCP_CONTENT_MARKER)
  );
}

/**
 * One MCP content block as one reply `content` string: a bare text block (no annotations, no `_meta`) is its
 * text; any other block (image, audio, resource, resource link, annotated text) is
 * {@link MCP_CONTENT_MARKER} followed by the block as JSON.
 */
export function encodeMcpContent(block: ContentBlock): string {
  return isBareText(block) ? block.text : encode(block);
}

/**
 * The MCP content block a reply `content` string stands for: the block encoded after the marker, or a text
 * block with the string as its text.
 *
 * @throws TrestleError `DataLoss` when the string carries the marker but no valid block after it.
 */
export function decodeMcpContent(entry: string): ContentBlock {
  if (!entry.startsWith(MCP_CONTENT_MARKER)) return { type: "text", text: entry };
  const value = decode(entry);
  if (!value || typeof value !== "object" || typeof (value as { type?: unknown }).type !== "string") {
    throw new TrestleError(
      "A reply content string carries the MCP content marker but no content block",
      Code.DataLoss,
    );
  }
  return value as ContentBlock;
}

/**
 * The reply `content` strings of a successful `tools/call` result: each block encoded with
 * {@link encodeMcpContent}, then, when the tool returned `structuredContent`, one more marked string holding
 * `{ "structuredContent": … }`.
 */
export function encodeToolResult(result: Pick<CallToolResult, "content" | "structuredContent">): string[] {
  const content = (result.content ?? []).map(encodeMcpContent);
  if (result.structuredContent !== undefined)
    content.push(encode({ structuredContent: result.structuredContent }));
  return content;
}

/** What {@link decodeToolReply} restores: the fields of an MCP `CallToolResult`. */
export interface DecodedToolReply {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
}

/**
 * Restores the MCP `CallToolResult` fields from the `content` strings of a reply of the MCP transport: the
 * inverse of {@link encodeToolResult}. Plain strings (from any transport) become text blocks.
 *
 * @throws TrestleError `DataLoss` when a marked string holds no valid JSON.
 *
 * @example
 * ```ts
 * const reply = await transport.invokeTool(request, target);
 * const result: CallToolResult = { ...decodeToolReply(reply.content) };
 * ```
 */
export function decodeToolReply(content: readonly string[]): DecodedToolReply {
  const out: DecodedToolReply = { content: [] };
  for (const entry of content) {
    if (entry.startsWith(MCP_CONTENT_MARKER)) {
      const value = decode(entry) as Partial<EncodedStructuredContent> & { type?: unknown };
      if (value && typeof value === "object" && value.type === undefined && value.structuredContent) {
        out.structuredContent = value.structuredContent;
        continue;
      }
    }
    out.content.push(decodeMcpContent(entry));
  }
  return out;
}

/**
 * The reply `content` strings of a `resources/read` result for `location`: a text content of that same URI
 * with no `_meta` is its text; any other content (a blob, or a text of another URI) is marked JSON of the
 * MCP resource contents, so its URI, MIME type and Base64 data survive.
 */
export function encodeResourceResult(
  result: Pick<ReadResourceResult, "contents">,
  location: string,
): string[] {
  return result.contents.map((contents) => {
    const text = (contents as { text?: unknown }).text;
    const plain =
      typeof text === "string" &&
      contents.uri === location &&
      contents._meta === undefined &&
      !text.startsWith(MCP_CONTENT_MARKER);
    return plain ? text : encode(contents);
  });
}

/**
 * Restores MCP resource contents from the `content` strings of a `resources/read` reply of the MCP transport:
 * the inverse of {@link encodeResourceResult}. A plain string becomes a text content of `uri` with
 * `mimeType` (the requested URI and the catalog's MIME type, since plain strings do not carry them).
 *
 * @throws TrestleError `DataLoss` when a marked string holds no valid JSON.
 */
export function decodeResourceReply(
  content: readonly string[],
  defaults: { uri: string; mimeType?: string },
): McpResourceContents[] {
  return content.map((entry) => {
    if (!entry.startsWith(MCP_CONTENT_MARKER)) {
      const text: TextResourceContents = { uri: defaults.uri, text: entry };
      if (defaults.mimeType !== undefined) text.mimeType = defaults.mimeType;
      return text;
    }
    const value = decode(entry);
    if (!value || typeof value !== "object" || typeof (value as { uri?: unknown }).uri !== "string") {
      throw new TrestleError(
        "A reply content string carries the MCP content marker but no resource contents",
        Code.DataLoss,
      );
    }
    return value as McpResourceContents;
  });
}
