/**
 * Content blocks (of a tool result, of a prompt message) per revision. What a revision cannot show is translated
 * where its meaning can be kept: audio before 2025-03-26 and resource links before 2025-06-18 become text blocks
 * that say what was there; a block type no revision defines in a result becomes a text block that says so.
 */
import type { TranslationNote } from "@trestle/core";
import { note, omit } from "./encoded.js";
import { trimBase, trimIcons } from "./fields.js";
import type { Features } from "./revisions.js";
import type {
  McpAnnotations,
  McpAudioContent,
  McpContentBlock,
  McpResourceLink,
  McpTextContent,
} from "./types.js";

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The decoded size of Base64 `data`, without decoding it. */
function base64Size(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** `replacement` with the annotations and `_meta` of `original`, which every content block may carry. */
function withBlockBase(
  replacement: McpTextContent,
  original: { annotations?: McpAnnotations | undefined; _meta?: Record<string, unknown> | undefined },
): McpTextContent {
  if (original.annotations !== undefined) replacement.annotations = original.annotations;
  if (original._meta !== undefined) replacement._meta = original._meta;
  return replacement;
}

/**
 * Audio for a revision without audio content (2024-11-05): a text block that tells the model and the user what
 * was there. The Base64 data itself is not carried: as text it means nothing to a model, and an embedded blob
 * would need a resource URI that does not exist.
 */
function audioAsText(block: McpAudioContent, f: Features): McpTextContent {
  const mimeType = typeof block.mimeType === "string" ? block.mimeType : "audio";
  const size = typeof block.data === "string" ? `, ${formatBytes(base64Size(block.data))}` : "";
  const text = `[Audio omitted (${mimeType}${size}): MCP revision ${f.revision} cannot carry audio content.]`;
  return withBlockBase({ type: "text", text }, block);
}

/**
 * A resource link for a revision without `resource_link` (before 2025-06-18): a text block naming the link, so
 * the model and the user still see which resource it points to (and can read it by URI, which every revision
 * allows). Not an embedded resource: that shape claims to carry the resource's contents, which a link does not
 * have, and fetching them is not an encoder's job.
 */
function resourceLinkAsText(block: McpResourceLink): McpTextContent {
  const name = typeof block.name === "string" ? block.name : "";
  const label = typeof block.title === "string" && block.title !== name ? `${block.title} (${name})` : name;
  const details: string[] = [];
  if (typeof block.mimeType === "string") details.push(block.mimeType);
  if (typeof block.size === "number") details.push(formatBytes(block.size));
  let text = `[Resource link: ${label} <${String(block.uri)}>`;
  if (details.length > 0) text += ` (${details.join(", ")})`;
  if (typeof block.description === "string" && block.description !== "") text += ` - ${block.description}`;
  const replacement: McpTextContent = { type: "text", text: `${text}]` };
  return withBlockBase(replacement, block);
}

/**
 * One block as the revision `f` describes it; `where` names it in the notes (`content[2]`).
 */
export function encodeContentBlock(
  block: McpContentBlock,
  f: Features,
  where: string,
  notes: TranslationNote[],
): McpContentBlock {
  // A string, not the union's literals: a block an upstream sends may have a type no schema lists.
  const type: string = block.type;
  const label = `${where} (${type})`;
  switch (block.type) {
    case "text":
    case "image":
      return trimBase(block, f, label, notes);
    case "audio":
      if (f.audio) return trimBase(block, f, label, notes);
      note(
        notes,
        "dropped",
        label,
        `MCP revision ${f.revision} has no audio content; a text block names its type and size`,
      );
      return trimBase(audioAsText(block, f), f, label, notes);
    case "resource_link":
      if (f.resourceLink) return trimIcons(trimBase(block, f, label, notes), f, label, notes);
      note(
        notes,
        "rewritten",
        label,
        `MCP revision ${f.revision} has no resource_link content; a text block carries its name, URI and details`,
      );
      return trimBase(resourceLinkAsText(block), f, label, notes);
    case "resource": {
      let out = trimBase(block, f, label, notes);
      const resource = block.resource;
      if (!f.nestedMeta && resource?._meta !== undefined) {
        note(notes, "dropped", `${label} resource._meta`, `MCP revision ${f.revision} has no _meta here`);
        if (out === block) out = { ...block };
        out.resource = omit(resource, ["_meta"]);
      }
      return out;
    }
  }
  // A block type no revision defines in a result (say, sampling's tool_use): never passed through.
  note(notes, "dropped", label, `'${type}' is not a content type of MCP results; a text block says so`);
  return { type: "text", text: `[Content of type '${type}' omitted: MCP results cannot carry it.]` };
}

/**
 * Whether a block needs nothing for the revision: the common case, decided without building any note text (this
 * runs for every block of every result).
 */
export function blockFits(block: McpContentBlock, f: Features): boolean {
  switch (block.type) {
    case "text":
    case "image":
      break;
    case "audio":
      if (!f.audio) return false;
      break;
    case "resource_link":
      if (!f.resourceLink || (!f.icons && block.icons !== undefined)) return false;
      break;
    case "resource":
      if (!f.nestedMeta && block.resource?._meta !== undefined) return false;
      break;
    default:
      return false;
  }
  return (
    (f.nestedMeta || block._meta === undefined) &&
    (f.lastModified || block.annotations?.lastModified === undefined)
  );
}

/** Whether every block of `content` fits the revision: the common path, which allocates nothing. */
export function contentFits(content: readonly McpContentBlock[], f: Features): boolean {
  for (const block of content) if (!blockFits(block, f)) return false;
  return true;
}

/**
 * The blocks of a result as the revision `f` describes them; the same array when every block fits. `where` names
 * the list in the notes (`content`).
 */
export function encodeContent(
  content: McpContentBlock[],
  f: Features,
  where: string,
  notes: TranslationNote[],
): McpContentBlock[] {
  let out: McpContentBlock[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const block = content[index] as McpContentBlock;
    if (blockFits(block, f)) {
      out?.push(block);
      continue;
    }
    out ??= content.slice(0, index);
    out.push(encodeContentBlock(block, f, `${where}[${index}]`, notes));
  }
  return out ?? content;
}
