import { termsOf } from "./text-terms.js";

/**
 * What the index reads of a tool: the fields MCP `tools/list` shows. A catalog `ToolReference` and an MCP `Tool`
 * both fit, so the index holds whichever the caller keeps and gives it back in results.
 */
export interface IndexableTool {
  /** Unique in the index; a tool added with a name already held replaces that tool. */
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  /** Argument names, their `description`s and `enum` values are indexed; other schema keywords are not. */
  inputSchema?: { properties?: Readonly<Record<string, unknown>> | undefined } | undefined;
}

/** The searchable fields of a tool: as text ({@link toolText}) or as space-separated index terms. */
export interface ToolDocument {
  /** The name split into words (snake_case, camelCase, kebab-case, dots), normalized. */
  name: string;
  title: string;
  description: string;
  /** Argument names split into words, the arguments' descriptions and enum values. */
  parameters: string;
}

/** What an argument's schema says in words: its description and the values of its enum. */
function wordsOfSchema(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "";
  const { description, enum: values } = schema as { description?: unknown; enum?: unknown };
  const enumText = Array.isArray(values) ? values.filter((v) => typeof v === "string").join(" ") : "";
  return `${typeof description === "string" ? description : ""} ${enumText}`;
}

/**
 * The searchable text of a tool, field by field, as it reads (before tokenizing). Bounded: text beyond
 * `maxFieldLength` characters in one field is not indexed (a description of megabytes costs no more than one of
 * the limit). Cheap: comparing it tells whether a changed tool needs re-indexing.
 */
export function toolText(tool: IndexableTool, maxFieldLength: number): ToolDocument {
  const clip = (text: unknown): string => (typeof text === "string" ? text.slice(0, maxFieldLength) : "");
  let parameters = "";
  for (const [name, schema] of Object.entries(tool.inputSchema?.properties ?? {})) {
    if (parameters.length >= maxFieldLength) break;
    parameters += ` ${name} ${wordsOfSchema(schema)}`;
  }
  return {
    name: clip(tool.name),
    title: clip(tool.title),
    description: clip(tool.description),
    parameters: clip(parameters),
  };
}

/** The index terms of a tool's text, field by field, space-separated. */
export function toolDocument(text: ToolDocument): ToolDocument {
  return {
    name: termsOf(text.name).join(" "),
    title: termsOf(text.title).join(" "),
    description: termsOf(text.description).join(" "),
    parameters: termsOf(text.parameters).join(" "),
  };
}

/** Whether two tools' texts are the same field by field (so a replaced tool needs no re-indexing). */
export function sameText(a: ToolDocument, b: ToolDocument): boolean {
  return (
    a.name === b.name &&
    a.title === b.title &&
    a.description === b.description &&
    a.parameters === b.parameters
  );
}
