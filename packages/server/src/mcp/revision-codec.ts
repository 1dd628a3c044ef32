/**
 * The per-revision result codec: turns a result or notification built in the newest MCP shapes into one that is
 * valid in the revision a client negotiated. What an older revision cannot say is translated where its meaning
 * can be kept (audio and resource links become text, structured content becomes JSON text, a tool title becomes
 * the 2025-03-26 `annotations.title`) and dropped otherwise; each lossy step is reported as a
 * {@link TranslationNote} for the call's event. Pure functions, no state: the tables below are constants.
 *
 * Input: a result in the union of the 2025-11-25 and 2026-07-28 shapes (what the SDK and the forwards produce),
 * with or without the 2026-07-28 envelope fields (`resultType`, `ttlMs`, `cacheScope`). The codec does not check
 * the rest of the input: a field it does not know passes through unchanged.
 *
 * The common path is cheap: when nothing needs changing, the same object comes back (no copy) with an empty,
 * shared notes array. Build results for 2026-07-28 clients with `resultType: "complete"` already set to stay on
 * that path; for older clients build them without it.
 */
import { Code, type TranslationNote, TrestleError } from "@trestle/core";

/** The MCP revisions the router serves, oldest first. */
export const MCP_REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;

/** One MCP protocol revision the router serves. */
export type McpRevision = (typeof MCP_REVISIONS)[number];

/** The newest revision the router serves: its shapes are the codec's input. */
export const LATEST_MCP_REVISION: McpRevision = "2026-07-28";

/** Whether `value` names a revision in {@link MCP_REVISIONS}. */
export function isMcpRevision(value: unknown): value is McpRevision {
  return typeof value === "string" && (MCP_REVISIONS as readonly string[]).includes(value);
}

/**
 * Whether `revision` is `minimum` or newer. Revisions are ISO dates, so their order is the order of the strings.
 *
 * @example isAtLeast("2025-06-18", "2025-03-26") // true
 */
export function isAtLeast(revision: McpRevision, minimum: McpRevision): boolean {
  return revision >= minimum;
}

/** An encoded value and what its encoding did not carry over unchanged (empty when nothing was lost). */
export interface Encoded<T> {
  value: T;
  notes: readonly TranslationNote[];
}

/** Any JSON object on the wire. */
export type WireObject = { [key: string]: unknown };

/** MCP `Annotations` on a content block or resource. */
export interface WireAnnotations {
  audience?: string[];
  priority?: number;
  lastModified?: string;
  [key: string]: unknown;
}

/** One content block of a tool result or prompt message, in any revision's shape. */
export interface WireContentBlock {
  type: string;
  annotations?: WireAnnotations;
  _meta?: WireObject;
  [key: string]: unknown;
}

/** Fields every result may carry; the first three exist in 2026-07-28 only. */
export interface WireResult {
  resultType?: string;
  ttlMs?: number;
  cacheScope?: "public" | "private";
  _meta?: WireObject;
  [key: string]: unknown;
}

/** A `tools/call` result. */
export interface WireCallToolResult extends WireResult {
  content: WireContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** A `prompts/get` result. */
export interface WireGetPromptResult extends WireResult {
  description?: string;
  messages: { role: string; content: WireContentBlock; [key: string]: unknown }[];
}

/** A `resources/read` result. */
export interface WireReadResourceResult extends WireResult {
  contents: ({ uri: string; mimeType?: string; _meta?: WireObject; [key: string]: unknown } & WireObject)[];
}

/** A `completion/complete` result. */
export interface WireCompleteResult extends WireResult {
  completion: { values: string[]; total?: number; hasMore?: boolean; [key: string]: unknown };
}

/** An MCP `Icon`. */
export interface WireIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
  [key: string]: unknown;
}

/** A JSON Schema object as a tool's `inputSchema` or `outputSchema`. */
export type WireJsonSchema = WireObject;

/** An MCP `Tool` as `tools/list` lists it. */
export interface WireTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: WireJsonSchema;
  outputSchema?: WireJsonSchema;
  annotations?: { title?: string; [key: string]: unknown };
  execution?: { taskSupport?: string; [key: string]: unknown };
  icons?: WireIcon[];
  _meta?: WireObject;
  [key: string]: unknown;
}

/** An MCP `Resource` as `resources/list` lists it. */
export interface WireResource {
  uri: string;
  name: string;
  title?: string;
  icons?: WireIcon[];
  annotations?: WireAnnotations;
  _meta?: WireObject;
  [key: string]: unknown;
}

/** An MCP `ResourceTemplate` as `resources/templates/list` lists it. */
export interface WireResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  icons?: WireIcon[];
  annotations?: WireAnnotations;
  _meta?: WireObject;
  [key: string]: unknown;
}

/** An MCP `PromptArgument`. */
export interface WirePromptArgument {
  name: string;
  title?: string;
  [key: string]: unknown;
}

/** An MCP `Prompt` as `prompts/list` lists it. */
export interface WirePrompt {
  name: string;
  title?: string;
  arguments?: WirePromptArgument[];
  icons?: WireIcon[];
  _meta?: WireObject;
  [key: string]: unknown;
}

/** An MCP `Implementation`: the router's `serverInfo`. */
export interface WireImplementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: WireIcon[];
  [key: string]: unknown;
}

/** A list result (`tools/list`, `resources/list`, …). */
export type WireListResult<K extends string, T> = WireResult & { nextCursor?: string } & { [P in K]: T[] };

/** A server-to-client notification. */
export interface WireNotification {
  method: string;
  params?: WireObject;
}

/** What a revision can say, derived once from the revision ordering. */
interface Features {
  readonly revision: McpRevision;
  /** `audio` content (2025-03-26). */
  readonly audio: boolean;
  /** The `completions` server capability (2025-03-26). */
  readonly completions: boolean;
  /** Tool `annotations` (2025-03-26). */
  readonly toolAnnotations: boolean;
  /** `message` on progress notifications (2025-03-26). */
  readonly progressMessage: boolean;
  /** `resource_link` content (2025-06-18). */
  readonly resourceLink: boolean;
  /** `title` on tools, resources, templates, prompts, prompt arguments and implementations (2025-06-18). */
  readonly titles: boolean;
  /** `_meta` on content blocks, resource contents, tools, resources, templates and prompts (2025-06-18). */
  readonly nestedMeta: boolean;
  /** `annotations.lastModified` (2025-06-18). */
  readonly lastModified: boolean;
  /** `structuredContent`: absent, a JSON object only (2025-06-18), any JSON value (2026-07-28). */
  readonly structuredContent: "none" | "object" | "any";
  /** Tool `outputSchema`: absent, `type: "object"` only (2025-06-18), any JSON Schema (2026-07-28). */
  readonly outputSchema: "none" | "object" | "any";
  /** `icons` (2025-11-25). */
  readonly icons: boolean;
  /** `description` and `websiteUrl` on an implementation (2025-11-25). */
  readonly implementationDetails: boolean;
  /** Tool `execution.taskSupport`: experimental tasks in core, 2025-11-25 only. */
  readonly toolExecution: boolean;
  /** The stateless envelope: `resultType`, `ttlMs`/`cacheScope`, `io.modelcontextprotocol/*` meta keys (2026-07-28). */
  readonly modernEnvelope: boolean;
  /** Boolean schemas as property schemas in `inputSchema`/`outputSchema` (2026-07-28 allows any JSON Schema). */
  readonly booleanSchemas: boolean;
}

function featuresOf(revision: McpRevision): Features {
  const since = (minimum: McpRevision) => isAtLeast(revision, minimum);
  const modern = since("2026-07-28");
  return Object.freeze({
    revision,
    audio: since("2025-03-26"),
    completions: since("2025-03-26"),
    toolAnnotations: since("2025-03-26"),
    progressMessage: since("2025-03-26"),
    resourceLink: since("2025-06-18"),
    titles: since("2025-06-18"),
    nestedMeta: since("2025-06-18"),
    lastModified: since("2025-06-18"),
    structuredContent: modern ? "any" : since("2025-06-18") ? "object" : "none",
    outputSchema: modern ? "any" : since("2025-06-18") ? "object" : "none",
    icons: since("2025-11-25"),
    implementationDetails: since("2025-11-25"),
    toolExecution: revision === "2025-11-25",
    modernEnvelope: modern,
    booleanSchemas: modern,
  });
}

const FEATURES: Readonly<Record<McpRevision, Features>> = Object.freeze(
  Object.fromEntries(MCP_REVISIONS.map((revision) => [revision, featuresOf(revision)])) as Record<
    McpRevision,
    Features
  >,
);

function features(revision: McpRevision): Features {
  const found = FEATURES[revision];
  if (!found) {
    throw new TrestleError(
      `Unknown MCP revision '${String(revision)}'; known revisions: ${MCP_REVISIONS.join(", ")}`,
      Code.InvalidArgument,
    );
  }
  return found;
}

const NO_NOTES: readonly TranslationNote[] = Object.freeze([]);

/** Meta keys only the 2026-07-28 envelope defines; an older client gets neither. */
const MODERN_RESULT_META_KEYS = ["io.modelcontextprotocol/serverInfo"];
const MODERN_NOTIFICATION_META_KEYS = ["io.modelcontextprotocol/subscriptionId"];

/** A shallow copy of `source` without `keys`. */
function omit<T extends object>(source: T, keys: readonly string[]): T {
  const copy: WireObject = {};
  for (const key in source) {
    if (Object.hasOwn(source, key) && !keys.includes(key)) copy[key] = (source as WireObject)[key];
  }
  return copy as T;
}

function isPlainObject(value: unknown): value is WireObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function note(
  notes: TranslationNote[],
  action: TranslationNote["action"],
  what: string,
  detail: string,
): void {
  notes.push({ action, what, detail });
}

function finish<T>(value: T, notes: TranslationNote[]): Encoded<T> {
  return { value, notes: notes.length === 0 ? NO_NOTES : notes };
}

/**
 * Maps `items` through `encode`, returning the same array when no item changed (the common case), so a list
 * that needs nothing costs no allocation.
 */
function mapSame<T>(items: readonly T[], encode: (item: T, index: number) => T): T[] {
  let out: T[] | undefined;
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as T;
    const encoded = encode(item, index);
    if (encoded !== item && !out) out = items.slice(0, index);
    out?.push(encoded);
  }
  return out ?? (items as T[]);
}

/* ------------------------------------------------------------------------------------------------ envelope */

/**
 * The result envelope for the revision: 2026-07-28 requires `resultType` (and `ttlMs`/`cacheScope` on list and
 * read results, filled with the most conservative hints, `0` and `"private"`, when the caller gave none); older
 * revisions get none of these, nor the 2026-07-28 `_meta` keys. Lossless both ways: an older client treats every
 * result as complete and caches nothing.
 */
function encodeEnvelope<T extends WireResult>(result: T, f: Features, cacheable: boolean): T {
  if (f.modernEnvelope) {
    const needsType = result.resultType === undefined;
    const needsCache = cacheable && (result.ttlMs === undefined || result.cacheScope === undefined);
    if (!needsType && !needsCache) return result;
    // Defaults first, then the result's own fields: V8 (Node 20) is many times slower when a key is added to a
    // spread copy afterwards. The `??=` lines only catch keys present with the value `undefined`.
    const copy: WireResult = cacheable
      ? { resultType: "complete", ttlMs: 0, cacheScope: "private", ...result }
      : { resultType: "complete", ...result };
    copy.resultType ??= "complete";
    if (cacheable) {
      copy.ttlMs ??= 0;
      copy.cacheScope ??= "private";
    }
    return copy as T;
  }
  const resultType = result.resultType;
  if (resultType !== undefined && resultType !== "complete") {
    throw new TrestleError(
      `A result of type '${resultType}' has no encoding in MCP revision ${f.revision}: a session-era client ` +
        "gets input requests as server-to-client requests, not as a result",
      Code.InvalidArgument,
    );
  }
  const meta = result._meta;
  const modernMeta = meta !== undefined && MODERN_RESULT_META_KEYS.some((key) => key in meta);
  if (
    resultType === undefined &&
    result.ttlMs === undefined &&
    result.cacheScope === undefined &&
    !modernMeta
  ) {
    return result;
  }
  const copy = omit(result, ["resultType", "ttlMs", "cacheScope"]);
  if (modernMeta && meta) {
    const trimmed = omit(meta, MODERN_RESULT_META_KEYS);
    if (Object.keys(trimmed).length === 0) delete copy._meta;
    else copy._meta = trimmed;
  }
  return copy;
}

/**
 * Encodes any result that has no content of its own to translate (an empty result, `server/discover` for a
 * 2026-07-28 client): only the envelope changes, so no notes.
 *
 * @throws TrestleError `invalid_argument` for an `input_required` result and a revision before 2026-07-28.
 */
export function encodeResult<T extends WireResult>(result: T, revision: McpRevision): Encoded<T> {
  return { value: encodeEnvelope(result, features(revision), false), notes: NO_NOTES };
}

/* ------------------------------------------------------------------------------------------------ content */

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

/**
 * Audio for a revision without audio content (2024-11-05): a text block that tells the model and the user what
 * was there. The Base64 data itself is not carried: as text it means nothing to a model, and an embedded blob
 * would need a resource URI that does not exist.
 */
function audioAsText(block: WireContentBlock, f: Features): WireContentBlock {
  const mimeType = typeof block.mimeType === "string" ? block.mimeType : "audio";
  const size = typeof block.data === "string" ? `, ${formatBytes(base64Size(block.data))}` : "";
  const text = `[Audio omitted (${mimeType}${size}): MCP revision ${f.revision} cannot carry audio content.]`;
  return withBlockBase({ type: "text", text }, block);
}

/**
 * A resource link for a revision without `resource_link` (before 2025-06-18): a text block naming the link, so
 * the model and the user still see which resource it points to (and can read it by URI, which every revision
 * allows). Not an embedded resource: that shape claims to carry the resource's contents, which a link does not
 * have, and fetching them is not a codec's job.
 */
function resourceLinkAsText(block: WireContentBlock): WireContentBlock {
  const name = typeof block.name === "string" ? block.name : "";
  const label = typeof block.title === "string" && block.title !== name ? `${block.title} (${name})` : name;
  const details: string[] = [];
  if (typeof block.mimeType === "string") details.push(block.mimeType);
  if (typeof block.size === "number") details.push(formatBytes(block.size));
  let text = `[Resource link: ${label} <${String(block.uri)}>`;
  if (details.length > 0) text += ` (${details.join(", ")})`;
  if (typeof block.description === "string" && block.description !== "") text += ` - ${block.description}`;
  return withBlockBase({ type: "text", text: `${text}]` }, block);
}

/** `replacement` with the annotations and `_meta` of `original`, which every content block may carry. */
function withBlockBase(replacement: WireContentBlock, original: WireContentBlock): WireContentBlock {
  if (original.annotations !== undefined) replacement.annotations = original.annotations;
  if (original._meta !== undefined) replacement._meta = original._meta;
  return replacement;
}

/** Drops from annotations what the revision lacks (`lastModified` before 2025-06-18). */
function encodeAnnotations(
  annotations: WireAnnotations,
  f: Features,
  where: string,
  notes: TranslationNote[],
): WireAnnotations {
  if (f.lastModified || annotations.lastModified === undefined) return annotations;
  note(
    notes,
    "dropped",
    `${where} annotations.lastModified`,
    `MCP revision ${f.revision} has no lastModified`,
  );
  return omit(annotations, ["lastModified"]);
}

/** Drops `_meta` and `annotations.lastModified` where the revision lacks them. */
function trimBase<T extends { annotations?: WireAnnotations; _meta?: WireObject }>(
  value: T,
  f: Features,
  where: string,
  notes: TranslationNote[],
): T {
  let out = value;
  if (!f.nestedMeta && value._meta !== undefined) {
    note(notes, "dropped", `${where} _meta`, `MCP revision ${f.revision} has no _meta here`);
    out = omit(out, ["_meta"]);
  }
  if (value.annotations !== undefined) {
    const annotations = encodeAnnotations(value.annotations, f, where, notes);
    if (annotations !== value.annotations) {
      if (out === value) out = { ...value };
      out.annotations = annotations;
    }
  }
  return out;
}

/** Drops `icons` where the revision lacks them (before 2025-11-25). */
function trimIcons<T extends object>(value: T, f: Features, where: string, notes: TranslationNote[]): T {
  if (f.icons || (value as WireObject).icons === undefined) return value;
  note(notes, "dropped", `${where} icons`, `MCP revision ${f.revision} has no icons`);
  return omit(value, ["icons"]);
}

/** Drops `title` where the revision lacks it (before 2025-06-18). */
function trimTitle<T extends { title?: string }>(
  value: T,
  f: Features,
  where: string,
  notes: TranslationNote[],
): T {
  if (f.titles || value.title === undefined) return value;
  note(notes, "dropped", `${where} title`, `MCP revision ${f.revision} has no title; clients show the name`);
  return omit(value, ["title"]);
}

function encodeContentBlock(
  block: WireContentBlock,
  f: Features,
  where: string,
  notes: TranslationNote[],
): WireContentBlock {
  const type = block.type;
  const label = `${where} (${type})`;
  if (type === "text" || type === "image") return trimBase(block, f, label, notes);
  if (type === "audio") {
    if (f.audio) return trimBase(block, f, label, notes);
    note(
      notes,
      "dropped",
      label,
      `MCP revision ${f.revision} has no audio content; a text block names its type and size`,
    );
    return trimBase(audioAsText(block, f), f, label, notes);
  }
  if (type === "resource_link") {
    if (f.resourceLink) return trimIcons(trimBase(block, f, label, notes), f, label, notes);
    note(
      notes,
      "rewritten",
      label,
      `MCP revision ${f.revision} has no resource_link content; a text block carries its name, URI and details`,
    );
    return trimBase(resourceLinkAsText(block), f, label, notes);
  }
  if (type === "resource") {
    let out = trimBase(block, f, label, notes);
    const resource = block.resource;
    if (!f.nestedMeta && isPlainObject(resource) && resource._meta !== undefined) {
      note(notes, "dropped", `${label} resource._meta`, `MCP revision ${f.revision} has no _meta here`);
      if (out === block) out = { ...block };
      out.resource = omit(resource, ["_meta"]);
    }
    return out;
  }
  // A block type no revision defines in a result (say, sampling's tool_use): never passed through.
  note(
    notes,
    "dropped",
    label,
    `'${String(type)}' is not a content type of MCP results; a text block says so`,
  );
  return { type: "text", text: `[Content of type '${String(type)}' omitted: MCP results cannot carry it.]` };
}

/**
 * Whether a block needs nothing for the revision: the common case, decided without building any note text (this
 * runs for every block of every result).
 */
function blockFits(block: WireContentBlock, f: Features): boolean {
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
      if (!f.nestedMeta && (block.resource as WireObject | undefined)?._meta !== undefined) return false;
      break;
    default:
      return false;
  }
  return (
    (f.nestedMeta || block._meta === undefined) &&
    (f.lastModified || block.annotations?.lastModified === undefined)
  );
}

function encodeContent(
  content: WireContentBlock[],
  f: Features,
  where: string,
  notes: TranslationNote[],
): WireContentBlock[] {
  let out: WireContentBlock[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const block = content[index] as WireContentBlock;
    if (blockFits(block, f)) {
      out?.push(block);
      continue;
    }
    out ??= content.slice(0, index);
    out.push(encodeContentBlock(block, f, `${where}[${index}]`, notes));
  }
  return out ?? content;
}

/* ------------------------------------------------------------------------------------------------ results */

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as WireObject)[k], (b as WireObject)[k]))
  );
}

/** Whether `text` can be a JSON object or array: a cheap filter that keeps prose (`[Audio omitted…`) from a throwing parse. */
function looksLikeJsonContainer(text: string): boolean {
  const open = text[0];
  const close = text[text.length - 1];
  if (!((open === "{" && close === "}") || (open === "[" && close === "]"))) return false;
  const next = text.slice(1, 12).trimStart()[0];
  return open === "{" ? next === '"' || next === "}" : next !== undefined && /["{[\]\-0-9tfn]/.test(next);
}

/** The index of a text block whose text is `value` as JSON (in any formatting), or -1. */
function findJsonText(content: WireContentBlock[], value: unknown): number {
  const compact = JSON.stringify(value);
  const structured = typeof value === "object" && value !== null;
  return content.findIndex((block) => {
    if (block.type !== "text" || typeof block.text !== "string") return false;
    const text = block.text.trim();
    if (text === compact) return true;
    // Parse only what can be the same object or array in other formatting: parsing prose would throw.
    if (!structured || !looksLikeJsonContainer(text)) return false;
    try {
      return jsonEqual(JSON.parse(text), value);
    } catch {
      return false;
    }
  });
}

/**
 * Encodes a `tools/call` result for `revision`.
 *
 * Structured content the revision cannot carry (none before 2025-06-18; anything but a JSON object before
 * 2026-07-28) is dropped, and its JSON text is appended to `content` unless a text block already holds the same
 * JSON (the spec asks servers to send both).
 *
 * @throws TrestleError `invalid_argument` for an unknown revision, or an `input_required` result for a revision
 *   before 2026-07-28.
 */
export function encodeCallToolResult(
  result: WireCallToolResult,
  revision: McpRevision,
): Encoded<WireCallToolResult> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  let content = encodeContent(result.content, f, "content", notes);
  let dropStructured = false;
  const structured = result.structuredContent;
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
 * Encodes a `prompts/get` result for `revision`: each message's content block as in {@link encodeCallToolResult}.
 *
 * @throws TrestleError as {@link encodeCallToolResult}.
 */
export function encodeGetPromptResult(
  result: WireGetPromptResult,
  revision: McpRevision,
): Encoded<WireGetPromptResult> {
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
 * Encodes a `resources/read` result for `revision`: `_meta` on contents dropped before 2025-06-18; for
 * 2026-07-28, `ttlMs`/`cacheScope` filled with `0`/`"private"` when absent.
 *
 * @throws TrestleError as {@link encodeCallToolResult}.
 */
export function encodeReadResourceResult(
  result: WireReadResourceResult,
  revision: McpRevision,
): Encoded<WireReadResourceResult> {
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
export function encodeCompleteResult(
  result: WireCompleteResult,
  revision: McpRevision,
): Encoded<WireCompleteResult> {
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

/* ------------------------------------------------------------------------------------------------ listings */

/** Boolean property schemas as their object equivalents (`true` → `{}`, `false` → `{ not: {} }`). */
function objectPropertySchemas(schema: WireJsonSchema): WireJsonSchema {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return schema;
  let changed: WireObject | undefined;
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property !== "boolean") continue;
    changed ??= { ...properties };
    changed[name] = property ? {} : { not: {} };
  }
  return changed ? { ...schema, properties: changed } : schema;
}

function hasBooleanProperty(schema: WireJsonSchema): boolean {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return false;
  for (const key in properties) if (typeof properties[key] === "boolean") return true;
  return false;
}

/** Whether a tool needs nothing for the revision, decided without building any note text. */
function toolFits(tool: WireTool, f: Features): boolean {
  const output = tool.outputSchema;
  return (
    (f.titles || tool.title === undefined) &&
    (f.toolAnnotations || tool.annotations === undefined) &&
    (output === undefined ||
      f.outputSchema === "any" ||
      (f.outputSchema === "object" && output.type === "object" && !hasBooleanProperty(output))) &&
    (f.booleanSchemas || !hasBooleanProperty(tool.inputSchema)) &&
    (f.icons || tool.icons === undefined) &&
    (f.nestedMeta || tool._meta === undefined) &&
    (f.toolExecution || tool.execution === undefined)
  );
}

/** Whether a resource, template or prompt needs nothing for the revision. */
function entryFits(
  entry: { title?: string; icons?: WireIcon[]; _meta?: WireObject; annotations?: WireAnnotations },
  f: Features,
): boolean {
  return (
    (f.titles || entry.title === undefined) &&
    (f.icons || entry.icons === undefined) &&
    (f.nestedMeta || entry._meta === undefined) &&
    (f.lastModified || entry.annotations?.lastModified === undefined)
  );
}

function encodeToolWith(tool: WireTool, f: Features, notes: TranslationNote[]): WireTool {
  if (toolFits(tool, f)) return tool;
  const where = `tool '${tool.name}'`;
  let out = tool;
  const edit = (): WireTool => {
    if (out === tool) out = { ...tool };
    return out;
  };
  const drop = (key: string) => {
    if (out === tool) out = omit(tool, [key]);
    else delete out[key];
  };

  if (!f.titles && tool.title !== undefined) {
    if (f.toolAnnotations && tool.annotations?.title === undefined) {
      note(
        notes,
        "rewritten",
        `${where} title`,
        `MCP revision ${f.revision} has no title; carried as annotations.title`,
      );
      edit().annotations = { ...tool.annotations, title: tool.title };
    } else {
      note(
        notes,
        "dropped",
        `${where} title`,
        `MCP revision ${f.revision} has no title; clients show the name`,
      );
    }
    drop("title");
  }
  if (!f.toolAnnotations && tool.annotations !== undefined) {
    note(notes, "dropped", `${where} annotations`, `MCP revision ${f.revision} has no tool annotations`);
    drop("annotations");
  }
  if (tool.outputSchema !== undefined && f.outputSchema !== "any") {
    if (f.outputSchema === "none") {
      note(notes, "dropped", `${where} outputSchema`, `MCP revision ${f.revision} has no outputSchema`);
      drop("outputSchema");
    } else if (tool.outputSchema.type !== "object") {
      note(
        notes,
        "dropped",
        `${where} outputSchema`,
        `MCP revision ${f.revision} allows only an object outputSchema; its results carry the JSON as text`,
      );
      drop("outputSchema");
    } else {
      const outputSchema = objectPropertySchemas(tool.outputSchema);
      if (outputSchema !== tool.outputSchema) edit().outputSchema = outputSchema;
    }
  }
  if (!f.booleanSchemas) {
    const inputSchema = objectPropertySchemas(tool.inputSchema);
    if (inputSchema !== tool.inputSchema) edit().inputSchema = inputSchema;
  }
  if (!f.icons && tool.icons !== undefined) {
    note(notes, "dropped", `${where} icons`, `MCP revision ${f.revision} has no icons`);
    drop("icons");
  }
  if (!f.nestedMeta && tool._meta !== undefined) {
    note(notes, "dropped", `${where} _meta`, `MCP revision ${f.revision} has no _meta here`);
    drop("_meta");
  }
  if (!f.toolExecution && tool.execution !== undefined) {
    // Only `required` loses meaning: such a tool cannot be called in this revision without tasks. `optional`
    // and `forbidden` describe a plain call, which is what the client makes. 2026-07-28 moved tasks into an
    // extension whose servers return task handles unasked, with no per-tool declaration.
    if (tool.execution.taskSupport === "required") {
      note(
        notes,
        "dropped",
        `${where} execution`,
        `MCP revision ${f.revision} has no execution.taskSupport; the tool requires task-augmented calls`,
      );
    }
    drop("execution");
  }
  return out;
}

function encodeResourceWith(resource: WireResource, f: Features, notes: TranslationNote[]): WireResource {
  if (entryFits(resource, f)) return resource;
  const where = `resource '${resource.uri}'`;
  return trimIcons(trimTitle(trimBase(resource, f, where, notes), f, where, notes), f, where, notes);
}

function encodeResourceTemplateWith(
  template: WireResourceTemplate,
  f: Features,
  notes: TranslationNote[],
): WireResourceTemplate {
  if (entryFits(template, f)) return template;
  const where = `resource template '${template.uriTemplate}'`;
  return trimIcons(trimTitle(trimBase(template, f, where, notes), f, where, notes), f, where, notes);
}

function encodePromptWith(prompt: WirePrompt, f: Features, notes: TranslationNote[]): WirePrompt {
  if (entryFits(prompt, f) && (f.titles || !prompt.arguments?.some((a) => a.title !== undefined)))
    return prompt;
  const where = `prompt '${prompt.name}'`;
  let out = trimIcons(trimTitle(trimBase(prompt, f, where, notes), f, where, notes), f, where, notes);
  if (!f.titles && prompt.arguments !== undefined) {
    const args = mapSame(prompt.arguments, (argument) =>
      trimTitle(argument, f, `${where} argument '${argument.name}'`, notes),
    );
    if (args !== prompt.arguments) out = { ...out, arguments: args };
  }
  return out;
}

/** Encodes one tool for `revision` (see {@link encodeToolsList}). */
export function encodeTool(tool: WireTool, revision: McpRevision): Encoded<WireTool> {
  const notes: TranslationNote[] = [];
  return finish(encodeToolWith(tool, features(revision), notes), notes);
}

/** Encodes one resource for `revision`: `title`, `_meta`, `annotations.lastModified` and `icons` as the revision allows. */
export function encodeResource(resource: WireResource, revision: McpRevision): Encoded<WireResource> {
  const notes: TranslationNote[] = [];
  return finish(encodeResourceWith(resource, features(revision), notes), notes);
}

/** Encodes one resource template for `revision`, as {@link encodeResource}. */
export function encodeResourceTemplate(
  template: WireResourceTemplate,
  revision: McpRevision,
): Encoded<WireResourceTemplate> {
  const notes: TranslationNote[] = [];
  return finish(encodeResourceTemplateWith(template, features(revision), notes), notes);
}

/** Encodes one prompt for `revision`: `title` (its arguments' too), `_meta` and `icons` as the revision allows. */
export function encodePrompt(prompt: WirePrompt, revision: McpRevision): Encoded<WirePrompt> {
  const notes: TranslationNote[] = [];
  return finish(encodePromptWith(prompt, features(revision), notes), notes);
}

/**
 * Encodes an implementation (the router's `serverInfo`) for `revision`: `title` before 2025-06-18 and `icons`,
 * `description`, `websiteUrl` before 2025-11-25 are dropped. `label` names it in the notes.
 */
export function encodeImplementation(
  implementation: WireImplementation,
  revision: McpRevision,
  label = "serverInfo",
): Encoded<WireImplementation> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  let out = trimIcons(trimTitle(implementation, f, label, notes), f, label, notes);
  if (!f.implementationDetails) {
    const present = ["description", "websiteUrl"].filter((key) => implementation[key] !== undefined);
    if (present.length > 0) {
      for (const key of present)
        note(notes, "dropped", `${label} ${key}`, `MCP revision ${f.revision} has no ${key} here`);
      out = omit(out, present);
    }
  }
  return finish(out, notes);
}

function encodeList<K extends string, T>(
  result: WireListResult<K, T>,
  key: K,
  revision: McpRevision,
  encodeItem: (item: T, f: Features, notes: TranslationNote[]) => T,
): Encoded<WireListResult<K, T>> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  const items = result[key] as T[];
  const encoded = mapSame(items, (item) => encodeItem(item, f, notes));
  const out = encoded === items ? result : ({ ...result, [key]: encoded } as WireListResult<K, T>);
  return finish(encodeEnvelope(out, f, true), notes);
}

/**
 * Encodes a `tools/list` result for `revision`. Per tool: `title` dropped before 2025-06-18 (in 2025-03-26 moved to
 * `annotations.title` when that is free), `annotations` dropped before 2025-03-26, `outputSchema` dropped before
 * 2025-06-18 and, before 2026-07-28, when it is not an object schema; `icons` dropped before 2025-11-25; `_meta`
 * before 2025-06-18; `execution` outside 2025-11-25; boolean property schemas rewritten as objects before
 * 2026-07-28. For 2026-07-28, `ttlMs`/`cacheScope` are filled with `0`/`"private"` when absent.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeToolsList(
  result: WireListResult<"tools", WireTool>,
  revision: McpRevision,
): Encoded<WireListResult<"tools", WireTool>> {
  return encodeList(result, "tools", revision, encodeToolWith);
}

/** Encodes a `resources/list` result for `revision` (each resource as {@link encodeResource}). */
export function encodeResourcesList(
  result: WireListResult<"resources", WireResource>,
  revision: McpRevision,
): Encoded<WireListResult<"resources", WireResource>> {
  return encodeList(result, "resources", revision, encodeResourceWith);
}

/** Encodes a `resources/templates/list` result for `revision` (each as {@link encodeResourceTemplate}). */
export function encodeResourceTemplatesList(
  result: WireListResult<"resourceTemplates", WireResourceTemplate>,
  revision: McpRevision,
): Encoded<WireListResult<"resourceTemplates", WireResourceTemplate>> {
  return encodeList(result, "resourceTemplates", revision, encodeResourceTemplateWith);
}

/** Encodes a `prompts/list` result for `revision` (each prompt as {@link encodePrompt}). */
export function encodePromptsList(
  result: WireListResult<"prompts", WirePrompt>,
  revision: McpRevision,
): Encoded<WireListResult<"prompts", WirePrompt>> {
  return encodeList(result, "prompts", revision, encodePromptWith);
}

/** What a server advertises (`initialize` result, `server/discover` result). */
export interface WireServerCapabilities {
  completions?: WireObject;
  tasks?: WireObject;
  extensions?: WireObject;
  [key: string]: unknown;
}

/**
 * Encodes the router's capabilities for `revision`: `completions` before 2025-03-26, `tasks` outside 2025-11-25
 * (2026-07-28 declares the tasks extension under `extensions` instead) and `extensions` before 2026-07-28 are
 * removed. No notes: a client cannot use a capability its revision lacks, so nothing it could see is lost.
 */
export function encodeServerCapabilities(
  capabilities: WireServerCapabilities,
  revision: McpRevision,
): Encoded<WireServerCapabilities> {
  const f = features(revision);
  const absent: string[] = [];
  if (!f.completions && capabilities.completions !== undefined) absent.push("completions");
  if (!f.toolExecution && capabilities.tasks !== undefined) absent.push("tasks");
  if (!f.modernEnvelope && capabilities.extensions !== undefined) absent.push("extensions");
  return { value: absent.length === 0 ? capabilities : omit(capabilities, absent), notes: NO_NOTES };
}

/* ------------------------------------------------------------------------------------------------ notifications */

/** Server notifications some revisions lack: the revisions that define each. */
const NOTIFICATION_REVISIONS: Readonly<Record<string, readonly McpRevision[]>> = {
  "notifications/elicitation/complete": ["2025-11-25"],
  "notifications/tasks/status": ["2025-11-25"],
  "notifications/subscriptions/acknowledged": ["2026-07-28"],
};

/**
 * Encodes a server-to-client notification for `revision`. `value` is `undefined` when the revision has no such
 * notification (`notifications/elicitation/complete` and `notifications/tasks/status` outside 2025-11-25,
 * `notifications/subscriptions/acknowledged` before 2026-07-28, a `notifications/cancelled` without `requestId`
 * outside 2025-11-25): do not send it. The progress `message` is dropped before 2025-03-26; the 2026-07-28
 * `io.modelcontextprotocol/subscriptionId` meta key is removed before 2026-07-28. A method no revision defines
 * (an extension's, such as the 2026-07-28 tasks extension's `notifications/tasks`) passes unchanged.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeNotification(
  notification: WireNotification,
  revision: McpRevision,
): Encoded<WireNotification | undefined> {
  const f = features(revision);
  const { method, params } = notification;
  const only = NOTIFICATION_REVISIONS[method];
  if (only && !only.includes(revision)) {
    return {
      value: undefined,
      notes: [
        { action: "dropped", what: method, detail: `MCP revision ${revision} has no ${method} notification` },
      ],
    };
  }
  if (method === "notifications/cancelled" && revision !== "2025-11-25" && params?.requestId === undefined) {
    return {
      value: undefined,
      notes: [{ action: "dropped", what: method, detail: `MCP revision ${revision} requires requestId` }],
    };
  }
  if (params === undefined) return { value: notification, notes: NO_NOTES };
  const notes: TranslationNote[] = [];
  let out = params;
  if (method === "notifications/progress" && !f.progressMessage && params.message !== undefined) {
    note(notes, "dropped", `${method} message`, `MCP revision ${revision} has no progress message`);
    out = omit(out, ["message"]);
  }
  const meta = params._meta;
  if (!f.modernEnvelope && isPlainObject(meta) && MODERN_NOTIFICATION_META_KEYS.some((key) => key in meta)) {
    const trimmed = omit(meta, MODERN_NOTIFICATION_META_KEYS);
    out = Object.keys(trimmed).length === 0 ? omit(out, ["_meta"]) : { ...out, _meta: trimmed };
  }
  return finish(out === params ? notification : { method, params: out }, notes);
}
