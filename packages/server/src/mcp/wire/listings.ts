/**
 * What `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` list, per revision: each entry
 * loses the fields its revision lacks (a tool's title moves to `annotations.title` in 2025-03-26, where that is
 * free), each loss noted; boolean property schemas become their object equivalents before 2026-07-28.
 */
import type { TranslationNote } from "@trestle/core";
import { type Encoded, finish, isPlainObject, mapSame, note, omit } from "./encoded.js";
import { encodeEnvelope } from "./envelope.js";
import { trimBase, trimIcons, trimTitle } from "./fields.js";
import { type Features, features, type McpRevision } from "./revisions.js";
import type {
  EntryIn,
  ListedItems,
  ListKey,
  ListResultIn,
  McpListResult,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  McpTool,
  ToolIn,
  WireObject,
} from "./types.js";

type JsonSchema = McpTool["inputSchema"] | NonNullable<McpTool["outputSchema"]>;

/** Boolean property schemas as their object equivalents (`true` → `{}`, `false` → `{ not: {} }`). */
function objectPropertySchemas<S extends JsonSchema>(schema: S): S {
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

function hasBooleanProperty(schema: JsonSchema): boolean {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return false;
  for (const key in properties) if (typeof properties[key] === "boolean") return true;
  return false;
}

/** Whether a tool needs nothing for the revision, decided without building any note text. */
function toolFits(tool: McpTool, f: Features): boolean {
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
  entry: {
    title?: string | undefined;
    icons?: unknown;
    _meta?: unknown;
    annotations?: { lastModified?: string };
  },
  f: Features,
): boolean {
  return (
    (f.titles || entry.title === undefined) &&
    (f.icons || entry.icons === undefined) &&
    (f.nestedMeta || entry._meta === undefined) &&
    (f.lastModified || entry.annotations?.lastModified === undefined)
  );
}

function encodeToolWith(tool: McpTool, f: Features, notes: TranslationNote[]): McpTool {
  if (toolFits(tool, f)) return tool;
  const where = `tool '${tool.name}'`;
  let out = tool;
  const edit = (): McpTool => {
    if (out === tool) out = { ...tool };
    return out;
  };
  const drop = (key: "title" | "annotations" | "outputSchema" | "icons" | "_meta" | "execution") => {
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

function encodeResourceWith(resource: McpResource, f: Features, notes: TranslationNote[]): McpResource {
  if (entryFits(resource, f)) return resource;
  const where = `resource '${resource.uri}'`;
  return trimIcons(trimTitle(trimBase(resource, f, where, notes), f, where, notes), f, where, notes);
}

function encodeResourceTemplateWith(
  template: McpResourceTemplate,
  f: Features,
  notes: TranslationNote[],
): McpResourceTemplate {
  if (entryFits(template, f)) return template;
  const where = `resource template '${template.uriTemplate}'`;
  return trimIcons(trimTitle(trimBase(template, f, where, notes), f, where, notes), f, where, notes);
}

function encodePromptWith(prompt: McpPrompt, f: Features, notes: TranslationNote[]): McpPrompt {
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

/** Per list, how one of its entries is encoded. */
const ENTRY_ENCODERS: {
  [K in ListKey]: (entry: ListedItems[K], f: Features, notes: TranslationNote[]) => ListedItems[K];
} = {
  tools: encodeToolWith,
  resources: encodeResourceWith,
  resourceTemplates: encodeResourceTemplateWith,
  prompts: encodePromptWith,
};

/** Encodes one tool for `revision` (see {@link encodeListResult}). */
export function encodeTool<R extends McpRevision>(tool: McpTool, revision: R): Encoded<ToolIn<R>>;
export function encodeTool(tool: McpTool, revision: McpRevision): Encoded<McpTool> {
  const notes: TranslationNote[] = [];
  return finish(encodeToolWith(tool, features(revision), notes), notes);
}

/**
 * Encodes one resource for `revision`: `title`, `_meta`, `annotations.lastModified` and `icons` as the revision
 * allows.
 */
export function encodeResource<R extends McpRevision>(
  resource: McpResource,
  revision: R,
): Encoded<EntryIn<McpResource, R>>;
export function encodeResource(resource: McpResource, revision: McpRevision): Encoded<McpResource> {
  const notes: TranslationNote[] = [];
  return finish(encodeResourceWith(resource, features(revision), notes), notes);
}

/** Encodes one resource template for `revision`, as {@link encodeResource}. */
export function encodeResourceTemplate<R extends McpRevision>(
  template: McpResourceTemplate,
  revision: R,
): Encoded<EntryIn<McpResourceTemplate, R>>;
export function encodeResourceTemplate(
  template: McpResourceTemplate,
  revision: McpRevision,
): Encoded<McpResourceTemplate> {
  const notes: TranslationNote[] = [];
  return finish(encodeResourceTemplateWith(template, features(revision), notes), notes);
}

/** Encodes one prompt for `revision`: `title` (its arguments' too), `_meta` and `icons` as the revision allows. */
export function encodePrompt<R extends McpRevision>(
  prompt: McpPrompt,
  revision: R,
): Encoded<EntryIn<McpPrompt, R>>;
export function encodePrompt(prompt: McpPrompt, revision: McpRevision): Encoded<McpPrompt> {
  const notes: TranslationNote[] = [];
  return finish(encodePromptWith(prompt, features(revision), notes), notes);
}

/**
 * Encodes one page of list `key` for `revision`, each entry as its kind allows. Per tool: `title` dropped before
 * 2025-06-18 (in 2025-03-26 moved to `annotations.title` when that is free), `annotations` dropped before
 * 2025-03-26, `outputSchema` dropped before 2025-06-18 and, before 2026-07-28, when it is not an object schema;
 * `icons` dropped before 2025-11-25; `_meta` before 2025-06-18; `execution` outside 2025-11-25; boolean property
 * schemas rewritten as objects before 2026-07-28. Resources, templates and prompts as {@link encodeResource} and
 * {@link encodePrompt}. For 2026-07-28, `ttlMs`/`cacheScope` are filled with `0`/`"private"` when absent.
 *
 * @throws TrestleError `invalid_argument` for an unknown revision.
 */
export function encodeListResult<K extends ListKey, R extends McpRevision>(
  key: K,
  result: McpListResult<K>,
  revision: R,
): Encoded<ListResultIn<K, R>>;
export function encodeListResult<K extends ListKey>(
  key: K,
  result: McpListResult<K>,
  revision: McpRevision,
): Encoded<McpListResult<K>> {
  const f = features(revision);
  const notes: TranslationNote[] = [];
  const encodeEntry: (entry: ListedItems[K], f: Features, notes: TranslationNote[]) => ListedItems[K] =
    ENTRY_ENCODERS[key];
  const entries: ListedItems[K][] = result[key];
  const encoded = mapSame(entries, (entry) => encodeEntry(entry, f, notes));
  const out = encoded === entries ? result : { ...result, [key]: encoded };
  return finish(encodeEnvelope(out, f, true), notes);
}
