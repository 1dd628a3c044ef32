import type { PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import type { ForwardReference } from "@trestle/core/catalog";
import { CATALOG_LIMITS, parsePrompt, parseResource, parseTool } from "@trestle/registry";
import { FORWARD_LABEL, forwardServiceName } from "./forward-identity.js";
import type { UpstreamCatalog, UpstreamConnector } from "./upstream-connector.js";

/** The kinds of entry a forward imports. */
export type ImportedKind = "tool" | "resource" | "resource template" | "prompt";

/** An upstream entry that was not imported, and why. */
export interface SkippedEntry {
  kind: ImportedKind;
  /** Its name on the upstream server (a resource's URI). */
  upstreamName: string;
  /** The name it would have had in the namespace. */
  name?: string;
  reason: string;
}

/** What a forward's import puts in its namespace. */
export interface ImportPlan {
  tools: ToolReference[];
  resources: ResourceReference[];
  prompts: PromptReference[];
  /** Entries left out: name collisions, names MCP clients cannot use, schemas the catalog refuses. */
  skipped: SkippedEntry[];
}

/** The entries of the namespace the import must fit beside. */
export interface NamespaceEntries {
  tools: readonly ToolReference[];
  resources: readonly ResourceReference[];
  prompts: readonly PromptReference[];
}

const INVALID_NAME_CHARACTERS = /[^A-Za-z0-9_.-]/g;

/**
 * The name an upstream entry gets in the namespace: the forward's prefix, then the upstream name with every
 * character the catalog does not allow in names replaced by '_'.
 */
export function importedName(prefix: string | undefined, upstreamName: string): string {
  return `${prefix ?? ""}${upstreamName.replace(INVALID_NAME_CHARACTERS, "_")}`;
}

function clip(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return text.length > CATALOG_LIMITS.descriptionLength
    ? text.slice(0, CATALOG_LIMITS.descriptionLength)
    : text;
}

/**
 * Why an entry named `name` cannot be imported, or `undefined` when it can: the namespace holds one of that name
 * from elsewhere (`taken`, valued with the service that serves it; none for a prompt the router expands), or this
 * import already holds one (`imported`).
 */
function collision(
  kind: "tool" | "prompt",
  name: string,
  taken: ReadonlyMap<string, string | undefined>,
  imported: ReadonlySet<string>,
): string | undefined {
  if (taken.has(name)) {
    const holder = taken.get(name);
    return `the namespace already has a ${kind} named '${name}'${holder ? ` (served by '${holder}')` : ""}`;
  }
  if (imported.has(name)) return `another ${kind} of the same server is already imported as '${name}'`;
  return undefined;
}

function reasonOf(error: unknown): string {
  const message = (error as { rawMessage?: string }).rawMessage ?? (error as Error).message;
  return message;
}

/**
 * Plans the import of an upstream's catalog into a forward's namespace, deterministically:
 * - every tool, resource, resource template and prompt of the upstream, in the upstream's order, with its full
 *   JSON Schemas (input and output), its title, annotations and descriptions;
 * - names are the forward's prefix plus the upstream name (characters the catalog does not allow become '_');
 * - an entry whose name (or a resource's URI) is already taken in the namespace by something that is not this
 *   forward's is skipped and reported — what was there first stays; of two upstream entries that end up with
 *   the same name, the first is imported and the second reported;
 * - an entry the catalog refuses (e.g. an input schema with too many properties) is skipped and reported with
 *   the catalog's reason.
 *
 * Imported entries carry the label `trestle.forward=<name>` and the forward's service name as `type`.
 */
export function planImport(
  forward: ForwardReference,
  upstream: UpstreamCatalog,
  existing: NamespaceEntries,
  toolUri: UpstreamConnector["toolUri"],
): ImportPlan {
  const namespace = forward.namespace ?? "";
  const service = forwardServiceName(namespace, forward.name);
  const labels = { [FORWARD_LABEL]: forward.name };
  const skipped: SkippedEntry[] = [];
  const owned = (entry: { type?: string }) => entry.type === service;

  const takenTools = new Map(existing.tools.filter((t) => !owned(t)).map((t) => [t.name, t.type]));
  const takenPrompts = new Map(existing.prompts.filter((p) => !owned(p)).map((p) => [p.name, p.type]));
  const takenLocations = new Map(
    existing.resources.filter((r) => !owned(r)).map((r) => [r.location, r.type]),
  );
  const takenResourceNames = new Map(
    existing.resources.filter((r) => !owned(r)).map((r) => [r.name, r.type]),
  );

  const tools: ToolReference[] = [];
  const toolNames = new Set<string>();
  for (const tool of upstream.tools) {
    const name = importedName(forward.prefix, tool.name);
    const skip = (reason: string) => skipped.push({ kind: "tool", upstreamName: tool.name, name, reason });
    const refused = collision("tool", name, takenTools, toolNames);
    if (refused) {
      skip(refused);
      continue;
    }
    try {
      tools.push(
        parseTool({
          name,
          ...(tool.title ? { title: tool.title } : {}),
          ...(tool.description ? { description: clip(tool.description) } : {}),
          uri: toolUri(forward.name, tool.name, forward.upstream),
          type: service,
          inputSchema: tool.inputSchema,
          ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
          // 2025-11-25 upstreams declare it per tool; the router then runs such calls as its own tasks.
          ...(taskSupportOf(tool) ? { taskSupport: taskSupportOf(tool) } : {}),
          namespace,
          labels,
        }),
      );
      toolNames.add(name);
    } catch (error) {
      skip(reasonOf(error));
    }
  }

  const resources: ResourceReference[] = [];
  const locations = new Set<string>();
  const resourceNames = new Set<string>();
  const addResource = (
    kind: "resource" | "resource template",
    location: string,
    upstreamName: string,
    fields: { description?: string | undefined; mimeType?: string | undefined },
  ) => {
    const name = importedName(forward.prefix, upstreamName);
    const skip = (reason: string) => skipped.push({ kind, upstreamName: location, name, reason });
    const atLocation = takenLocations.get(location);
    if (atLocation !== undefined) {
      skip(`the namespace already has a resource at '${location}' (served by '${atLocation}')`);
      return;
    }
    const named = takenResourceNames.get(name);
    if (named !== undefined || resourceNames.has(name)) {
      skip(`the namespace already has a resource named '${name}'${named ? ` (served by '${named}')` : ""}`);
      return;
    }
    if (locations.has(location)) {
      skip(`the server lists '${location}' more than once`);
      return;
    }
    try {
      resources.push(
        parseResource({
          location,
          type: service,
          name,
          ...(fields.description ? { description: clip(fields.description) } : {}),
          ...(fields.mimeType ? { mimeType: fields.mimeType } : {}),
          namespace,
          labels,
        }),
      );
      locations.add(location);
      resourceNames.add(name);
    } catch (error) {
      skip(reasonOf(error));
    }
  };
  for (const r of upstream.resources) {
    addResource("resource", r.uri, r.name, { description: r.description, mimeType: r.mimeType });
  }
  for (const t of upstream.resourceTemplates) {
    addResource("resource template", t.uriTemplate, t.name, {
      description: t.description,
      mimeType: t.mimeType,
    });
  }

  const prompts: PromptReference[] = [];
  const promptNames = new Set<string>();
  for (const prompt of upstream.prompts) {
    const name = importedName(forward.prefix, prompt.name);
    const skip = (reason: string) =>
      skipped.push({ kind: "prompt", upstreamName: prompt.name, name, reason });
    const refused = collision("prompt", name, takenPrompts, promptNames);
    if (refused) {
      skip(refused);
      continue;
    }
    try {
      prompts.push(
        parsePrompt({
          name,
          ...(prompt.description ? { description: clip(prompt.description) } : {}),
          type: service,
          messages: [],
          ...(prompt.arguments
            ? {
                arguments: prompt.arguments.map((a) => ({
                  name: a.name,
                  ...(a.description ? { description: clip(a.description) } : {}),
                  ...(a.required !== undefined ? { required: a.required } : {}),
                })),
              }
            : {}),
          namespace,
          labels,
        }),
      );
      promptNames.add(name);
    } catch (error) {
      skip(reasonOf(error));
    }
  }

  return { tools, resources, prompts, skipped };
}

/** The task support an upstream tool declares (`execution.taskSupport`, 2025-11-25), if it declares one. */
function taskSupportOf(tool: unknown): "forbidden" | "optional" | "required" | undefined {
  const declared = (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  return declared === "forbidden" || declared === "optional" || declared === "required"
    ? declared
    : undefined;
}
