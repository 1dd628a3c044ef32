import type { PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import type { Catalog } from "@trestle/registry";
import { canonicalJson } from "../canonical-json.js";
import type { ImportPlan } from "./catalog-import.js";

/** How many entries of each kind one import added, changed and removed. */
export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
}

/** What one import changed in the namespace. */
export interface SyncResult {
  tools: SyncCounts;
  resources: SyncCounts;
  prompts: SyncCounts;
}

/** The part of an entry an import decides: everything but the catalog's own `id`. */
function comparable(entry: object): string {
  const { id: _id, ...rest } = entry as { id?: string };
  return canonicalJson(rest);
}

interface Section<T> {
  current: readonly T[];
  key(entry: T): string;
  add(entry: T): Promise<unknown>;
  update(key: string, entry: T): Promise<unknown>;
  remove(key: string): Promise<unknown>;
}

async function syncSection<T extends { type?: string }>(
  service: string,
  wanted: readonly T[],
  section: Section<T>,
): Promise<SyncCounts> {
  const counts: SyncCounts = { added: 0, updated: 0, removed: 0 };
  const mine = new Map(section.current.filter((e) => e.type === service).map((e) => [section.key(e), e]));
  const wantedKeys = new Set(wanted.map((e) => section.key(e)));
  // Removals first, so that an entry renamed upstream frees its old name before the new one is added.
  for (const [key] of mine) {
    if (wantedKeys.has(key)) continue;
    await section.remove(key);
    counts.removed++;
  }
  for (const entry of wanted) {
    const key = section.key(entry);
    const present = mine.get(key);
    if (!present) {
      await section.add(entry);
      counts.added++;
    } else if (comparable(present) !== comparable(entry)) {
      await section.update(key, entry);
      counts.updated++;
    }
  }
  return counts;
}

/**
 * Makes a namespace hold exactly the entries `plan` imports for the forward whose service is `service`:
 * adds what is new, updates what changed, removes what the upstream no longer offers, and leaves every entry of
 * anything else alone. Writes nothing when the namespace already matches, so replicas that import the same
 * upstream at once agree without rewriting each other's rows.
 */
export async function syncImport(
  catalog: Catalog,
  namespace: string,
  service: string,
  plan: Pick<ImportPlan, "tools" | "resources" | "prompts">,
): Promise<SyncResult> {
  const tools = await syncSection<ToolReference>(service, plan.tools, {
    current: catalog.listTools(namespace),
    key: (t) => t.name,
    add: (t) => catalog.addTool(t),
    update: (name, t) => catalog.updateTool(namespace, name, (current) => ({ ...t, id: current.id })),
    remove: (name) => catalog.removeTool(namespace, name),
  });
  const resources = await syncSection<ResourceReference>(service, plan.resources, {
    current: catalog.listResources(namespace),
    key: (r) => r.location,
    add: (r) => catalog.addResource(r),
    update: (location, r) =>
      catalog.updateResource(namespace, location, (current) => ({ ...r, id: current.id })),
    remove: (location) => catalog.removeResource(namespace, location),
  });
  const prompts = await syncSection<PromptReference>(service, plan.prompts, {
    current: catalog.listPrompts(namespace),
    key: (p) => p.name,
    add: (p) => catalog.addPrompt(p),
    update: (name, p) => catalog.updatePrompt(namespace, name, (current) => ({ ...p, id: current.id })),
    remove: (name) => catalog.removePrompt(namespace, name),
  });
  return { tools, resources, prompts };
}

/** Removes every entry a forward imported into its namespace. */
export function removeImported(catalog: Catalog, namespace: string, service: string): Promise<SyncResult> {
  return syncImport(catalog, namespace, service, { tools: [], resources: [], prompts: [] });
}
