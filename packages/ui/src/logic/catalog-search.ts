import type { Labels, Prompt, Resource, Tool } from "../api/types";

/** Anything of the catalog the search box looks through. */
export type CatalogEntry = Tool | Resource | Prompt;

/** The words of a search: lower case, split on white space. */
export function searchTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

function labelText(labels: Labels | undefined): string {
  return labels
    ? Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")
    : "";
}

/** The text an entry is searched by: its name, title, description, service, location and labels. */
export function searchableText(entry: CatalogEntry): string {
  const parts: (string | undefined)[] = [entry.name, entry.description, labelText(entry.labels)];
  if ("uri" in entry) parts.push(entry.title, entry.type, entry.uri);
  if ("location" in entry) parts.push(entry.type, entry.location, entry.mimeType);
  if ("arguments" in entry) parts.push(...(entry.arguments ?? []).map((a) => a.name));
  return parts.filter(Boolean).join(" ").toLowerCase();
}

/**
 * The entries every word of `query` is found in (anywhere in the searchable text), those whose name holds the
 * first word first, each group in its original order. An empty query matches everything.
 */
export function searchCatalog<E extends CatalogEntry>(entries: readonly E[], query: string): E[] {
  const terms = searchTerms(query);
  if (terms.length === 0) return [...entries];
  const matched = entries.filter((entry) => {
    const text = searchableText(entry);
    return terms.every((term) => text.includes(term));
  });
  const first = terms[0] as string;
  const byName = matched.filter((e) => e.name.toLowerCase().includes(first));
  return [...byName, ...matched.filter((e) => !byName.includes(e))];
}
