import type { Labels, Tool } from "../api/types";

/** The add-a-tool form's fields, as typed. */
export interface ToolFormFields {
  namespace: string;
  name: string;
  type: string;
  uri: string;
  description: string;
  /** JSON of the input schema; empty for none. */
  inputSchema: string;
  /** One `key=value` a line. */
  labels: string;
}

/** An empty form, in `namespace`. */
export function emptyToolForm(namespace = ""): ToolFormFields {
  return { namespace, name: "", type: "", uri: "", description: "", inputSchema: "", labels: "" };
}

/** Either the tool to send, or what is wrong with each field the form can check itself. */
export type ToolFormResult =
  | { ok: true; tool: Tool }
  | { ok: false; errors: Partial<Record<keyof ToolFormFields, string>> };

function parseLabels(text: string): { labels: Labels } | { error: string } {
  const labels: Labels = {};
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) return { error: `Line ${i + 1}: write a label as key=value` };
    labels[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return { labels };
}

function parseSchema(text: string): { schema?: Tool["inputSchema"] } | { error: string } {
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { error: `Not JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return { error: 'Must be a JSON object, e.g. {"type": "object", "properties": {…}}' };
  return { schema: parsed as Tool["inputSchema"] };
}

/**
 * The tool the form describes, or the problems the form can see before the router does (a missing field, a
 * schema that is not a JSON object, a label without `=`). The router checks everything again and its refusal
 * is shown as it is.
 */
export function toolFromForm(fields: ToolFormFields): ToolFormResult {
  const errors: Partial<Record<keyof ToolFormFields, string>> = {};
  if (!fields.name.trim()) errors.name = "A tool needs a name.";
  if (!fields.type.trim()) errors.type = "Name the capability service that runs it.";
  if (!fields.uri.trim()) errors.uri = "A tool needs a URI (e.g. https://api.example/weather).";
  const schema = parseSchema(fields.inputSchema);
  if ("error" in schema) errors.inputSchema = schema.error;
  const labels = parseLabels(fields.labels);
  if ("error" in labels) errors.labels = labels.error;
  if (Object.keys(errors).length > 0 || "error" in schema || "error" in labels) return { ok: false, errors };
  const tool: Tool = {
    name: fields.name.trim(),
    type: fields.type.trim(),
    uri: fields.uri.trim(),
    ...(fields.namespace ? { namespace: fields.namespace } : {}),
    ...(fields.description.trim() ? { description: fields.description.trim() } : {}),
    ...(schema.schema ? { inputSchema: schema.schema } : {}),
    ...(Object.keys(labels.labels).length > 0 ? { labels: labels.labels } : {}),
  };
  return { ok: true, tool };
}
