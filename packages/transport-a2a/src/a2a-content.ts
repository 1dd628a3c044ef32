import type { Part } from "@a2a-js/sdk";
import type { ContentBlock, JsonObject, JsonValue, TranslationNote } from "@trestle/core";

/** What a list of A2A parts becomes on the MCP side. */
export interface TranslatedParts {
  content: ContentBlock[];
  /** The values of the data parts, in order (they become `structuredContent.data`). */
  data: JsonValue[];
  /** What the translation rewrote or dropped, for the call's translation report. */
  notes: TranslationNote[];
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function lastSegment(url: string): string {
  try {
    const path = new URL(url).pathname;
    return decodeURIComponent(path.slice(path.lastIndexOf("/") + 1)) || url;
  } catch {
    return url;
  }
}

/**
 * Translates an agent's parts into MCP content: a text part is a text block; a file by URL is a resource link;
 * a file by bytes is an image or audio block when its media type says so, else an embedded resource (text for a
 * `text/*` type, a blob otherwise) under `fileUri(name)`; a data part goes to `data` and is also given as a JSON
 * text block, for a client that reads no structured content. Part metadata has no MCP counterpart: dropped.
 */
export function partsToContent(parts: readonly Part[], fileUri: (name: string) => string): TranslatedParts {
  const out: TranslatedParts = { content: [], data: [], notes: [] };
  const note = (action: TranslationNote["action"], what: string, detail: string) => {
    if (!out.notes.some((n) => n.what === what && n.detail === detail))
      out.notes.push({ action, what, detail });
  };
  parts.forEach((part, index) => {
    const content = part.content;
    const mimeType = part.mediaType || undefined;
    if (part.metadata && Object.keys(part.metadata).length > 0) {
      note("dropped", "part metadata", "MCP content blocks have no per-part metadata from the agent");
    }
    switch (content?.$case) {
      case "text":
        out.content.push({ type: "text", text: content.value });
        return;
      case "url":
        out.content.push({
          type: "resource_link",
          uri: content.value,
          name: part.filename || lastSegment(content.value),
          ...(mimeType ? { mimeType } : {}),
        });
        note("rewritten", "file part (URL)", "sent as an MCP resource link");
        return;
      case "raw": {
        const data = base64(content.value);
        if (mimeType?.startsWith("image/")) {
          out.content.push({ type: "image", data, mimeType });
        } else if (mimeType?.startsWith("audio/")) {
          out.content.push({ type: "audio", data, mimeType });
        } else {
          const uri = fileUri(part.filename || `part-${index}`);
          out.content.push({
            type: "resource",
            resource: mimeType?.startsWith("text/")
              ? { uri, mimeType, text: Buffer.from(content.value).toString("utf8") }
              : { uri, ...(mimeType ? { mimeType } : {}), blob: data },
          });
        }
        note(
          "rewritten",
          "file part (bytes)",
          "sent as an MCP embedded resource (or image/audio block by media type)",
        );
        return;
      }
      case "data":
        out.data.push((content.value ?? null) as JsonValue);
        out.content.push({ type: "text", text: JSON.stringify(content.value ?? null) });
        note("rewritten", "data part", "sent as structuredContent.data and as a JSON text block");
        return;
      default:
        note("dropped", "empty part", "a part with no content has no MCP counterpart");
    }
  });
  return out;
}

/** The text of the text parts of `parts`, joined with new lines. */
export function textOf(parts: readonly Part[]): string {
  return parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("\n");
}

/**
 * `existing` with `appended` added as a streamed artifact chunk: a text part that follows a text part continues
 * it (an agent streams one text in pieces), anything else is a part of its own.
 */
export function appendParts(existing: readonly Part[], appended: readonly Part[]): Part[] {
  const out = [...existing];
  for (const part of appended) {
    const last = out.at(-1);
    if (last?.content?.$case === "text" && part.content?.$case === "text" && !part.metadata) {
      out[out.length - 1] = {
        ...last,
        content: { $case: "text", value: last.content.value + part.content.value },
      };
    } else {
      out.push(part);
    }
  }
  return out;
}

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: "text", value: text },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
}

/** A data part. */
export function dataPart(value: JsonObject): Part {
  return {
    content: { $case: "data", value },
    metadata: undefined,
    filename: "",
    mediaType: "application/json",
  };
}
