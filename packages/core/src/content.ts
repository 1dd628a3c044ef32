/**
 * MCP's content model (the 2025-11-25 shapes), the richest any side of the router speaks. Every transport maps
 * its wire to these shapes inside its own package; a protocol that cannot say something (Wanaku's string
 * replies) uses the subset it can.
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Hints on how a client may use a block (MCP `Annotations`). */
export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

/** An icon a resource link may carry (MCP `Icon`). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

/** What every content block may carry besides its own fields. */
interface BlockBase {
  annotations?: Annotations;
  _meta?: JsonObject;
}

/** A block of text. */
export interface TextContent extends BlockBase {
  type: "text";
  text: string;
}

/** An image, Base64-encoded in `data`. */
export interface ImageContent extends BlockBase {
  type: "image";
  data: string;
  mimeType: string;
}

/** Audio, Base64-encoded in `data`. */
export interface AudioContent extends BlockBase {
  type: "audio";
  data: string;
  mimeType: string;
}

/** The contents of a resource: text, or a Base64-encoded `blob`. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: JsonObject };

/** A resource's contents embedded in a result. */
export interface EmbeddedResource extends BlockBase {
  type: "resource";
  resource: ResourceContents;
}

/** A link to a resource the client may read later. */
export interface ResourceLink extends BlockBase {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
}

/** One block of a tool result or a prompt message. */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** A text block. */
export function textContent(text: string): TextContent {
  return { type: "text", text };
}
