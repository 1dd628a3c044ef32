import { Code, TrestleError } from "@trestle/core";
import MiniSearch from "minisearch";
import { expandQuery, prepareThesaurus } from "./query-expansion.js";
import {
  EXPANSION_WEIGHT,
  FIELD_BOOSTS,
  MAX_QUERY_TERMS,
  ownTermCount,
  PREFIX_MIN_LENGTH,
  RERANK_DEPTH,
  rerankFactor,
} from "./ranking.js";
import { THESAURUS } from "./thesaurus.js";
import { type IndexableTool, sameText, type ToolDocument, toolDocument, toolText } from "./tool-document.js";

/** Options of {@link createToolIndex}. */
export interface ToolIndexOptions<T extends IndexableTool> {
  /** The tools to start with. */
  tools?: Iterable<T>;
  /** Most results one search returns; a larger `limit` is lowered to it. Default 50. */
  maxLimit?: number;
  /** Longest query accepted, in characters. Default 1,000. */
  maxQueryLength?: number;
  /** Characters of one field of a tool that are indexed (name, title, description, arguments). Default 4,000. */
  maxFieldLength?: number;
  /**
   * Groups of interchangeable words and phrases; a query saying one also looks for the others, at a lower
   * weight. Default {@link THESAURUS}, general software and business vocabulary. Pass `[]` for none.
   */
  thesaurus?: readonly (readonly string[])[];
}

/** Options of one search. */
export interface ToolSearchOptions<T extends IndexableTool> {
  /** How many results at most; default 10, at most the index's `maxLimit`. */
  limit?: number;
  /**
   * Which tools the caller may see (the principal's policy). A tool it refuses is never returned, and does not
   * count against `limit`: the search returns up to `limit` tools the filter allows. Called in ranking order,
   * only as far as needed.
   */
  filter?: (tool: T) => boolean;
}

/** One search result. */
export interface ToolSearchResult<T extends IndexableTool> {
  tool: T;
  /** Relevance; higher is better. Comparable within one search only. */
  score: number;
}

/** What {@link ToolIndex.sync} changed. */
export interface ToolIndexChanges {
  added: number;
  /** Tools whose indexed text changed (a tool whose text is unchanged is swapped in place, not counted). */
  replaced: number;
  removed: number;
}

/**
 * A search index over tools, kept current as the catalog changes. Not safe to share across threads; cheap to
 * keep one per namespace.
 */
export interface ToolIndex<T extends IndexableTool> {
  /** How many tools it holds. */
  readonly size: number;
  /** The tool of that name, if held. */
  get(name: string): T | undefined;
  /** Adds a tool, or replaces the tool of the same name. */
  upsert(tool: T): void;
  /** Removes the tool of that name; false when there was none. */
  remove(name: string): boolean;
  /**
   * Makes the index hold exactly `tools`: adds the new, replaces the changed, removes the missing. Work is
   * proportional to the changes, plus one pass over `tools`.
   *
   * @throws TrestleError `InvalidArgument` when two of `tools` share a name (the index is left unchanged).
   */
  sync(tools: Iterable<T>): ToolIndexChanges;
  /**
   * The tools that best match a query, best first.
   *
   * @throws TrestleError `InvalidArgument` when the query is empty or too long, or `limit` is not a positive
   *   integer.
   */
  search(query: string, options?: ToolSearchOptions<T>): ToolSearchResult<T>[];
}

interface Entry<T> {
  id: number;
  tool: T;
  /** The tool's text as indexed, to tell whether a new version changes it. */
  text: ToolDocument;
  /** Its index terms, which removing it from the index needs. */
  document: ToolDocument;
}

type IndexedDocument = ToolDocument & { id: number };

const spaceSeparated = (text: string): string[] => (text ? text.split(" ") : []);
const asIs = (term: string): string => term;

/**
 * Creates a tool index: BM25+ ranking (MiniSearch) over each tool's name split into words, title, description,
 * and argument names and descriptions, with field boosts, stemming, a thesaurus of synonyms and prefix
 * matching of longer words.
 *
 * @example
 * ```ts
 * const index = createToolIndex({ tools: catalog });
 * const hits = index.search("open a ticket in Jira", { limit: 5, filter: (t) => policy.allows(t.name) });
 * index.upsert(changedTool);
 * index.remove("old_tool");
 * ```
 */
export function createToolIndex<T extends IndexableTool>(options: ToolIndexOptions<T> = {}): ToolIndex<T> {
  const maxLimit = positiveInteger(options.maxLimit ?? 50, "maxLimit");
  const maxQueryLength = positiveInteger(options.maxQueryLength ?? 1000, "maxQueryLength");
  const maxFieldLength = positiveInteger(options.maxFieldLength ?? 4000, "maxFieldLength");
  const thesaurus = prepareThesaurus(options.thesaurus ?? THESAURUS);
  const mini = new MiniSearch<IndexedDocument>({
    fields: ["name", "title", "description", "parameters"],
    tokenize: spaceSeparated,
    processTerm: asIs,
    searchOptions: { tokenize: spaceSeparated, processTerm: asIs },
  });
  const byName = new Map<string, Entry<T>>();
  const byId = new Map<number, Entry<T>>();
  let nextId = 0;

  const add = (tool: T, text: ToolDocument): void => {
    const entry = { id: nextId++, tool, text, document: toolDocument(text) };
    mini.add({ ...entry.document, id: entry.id });
    byName.set(tool.name, entry);
    byId.set(entry.id, entry);
  };
  const drop = (entry: Entry<T>): void => {
    mini.remove({ ...entry.document, id: entry.id });
    byName.delete(entry.tool.name);
    byId.delete(entry.id);
  };
  const upsert = (tool: T): "added" | "replaced" | "unchanged" => {
    const existing = byName.get(tool.name);
    if (existing?.tool === tool) return "unchanged";
    const text = toolText(tool, maxFieldLength);
    if (existing && sameText(existing.text, text)) {
      existing.tool = tool;
      return "unchanged";
    }
    if (existing) drop(existing);
    add(tool, text);
    return existing ? "replaced" : "added";
  };

  const index: ToolIndex<T> = {
    get size() {
      return byName.size;
    },
    get: (name) => byName.get(name)?.tool,
    upsert: (tool) => {
      upsert(tool);
    },
    remove: (name) => {
      const entry = byName.get(name);
      if (!entry) return false;
      drop(entry);
      return true;
    },
    sync: (tools) => {
      const incoming = new Map<string, T>();
      for (const tool of tools) {
        if (incoming.has(tool.name))
          throw new TrestleError(`two tools are named '${tool.name}'`, Code.InvalidArgument);
        incoming.set(tool.name, tool);
      }
      const changes: ToolIndexChanges = { added: 0, replaced: 0, removed: 0 };
      for (const entry of [...byName.values()]) {
        if (!incoming.has(entry.tool.name)) {
          drop(entry);
          changes.removed++;
        }
      }
      for (const tool of incoming.values()) {
        const outcome = upsert(tool);
        if (outcome !== "unchanged") changes[outcome]++;
      }
      return changes;
    },
    search: (query, searchOptions = {}) => {
      if (typeof query !== "string" || query.trim() === "")
        throw new TrestleError("the search query must be a non-empty string", Code.InvalidArgument);
      if (query.length > maxQueryLength)
        throw new TrestleError(
          `the search query has ${query.length} characters; at most ${maxQueryLength} are allowed`,
          Code.InvalidArgument,
        );
      const limit = Math.min(positiveInteger(searchOptions.limit ?? 10, "limit"), maxLimit);
      const weights = expandQuery(query, thesaurus, EXPANSION_WEIGHT, MAX_QUERY_TERMS);
      if (weights.size === 0) return [];
      const ranked = mini.search([...weights.keys()].join(" "), {
        boost: FIELD_BOOSTS,
        boostTerm: (term) => weights.get(term) ?? 1,
        prefix: (term) => term.length >= PREFIX_MIN_LENGTH && weights.get(term) === 1,
        weights: { fuzzy: 0.2, prefix: 0.3 },
      });
      const ownWeight = ownTermCount(weights);
      const candidates: ToolSearchResult<T>[] = [];
      const depth = Math.max(limit, RERANK_DEPTH);
      for (const hit of ranked) {
        const entry = byId.get(hit.id as number);
        if (!entry || (searchOptions.filter && !searchOptions.filter(entry.tool))) continue;
        const factor = rerankFactor(spaceSeparated(entry.document.name), hit.queryTerms, weights, ownWeight);
        candidates.push({ tool: entry.tool, score: hit.score * factor });
        if (candidates.length === depth) break;
      }
      return candidates.sort((a, b) => b.score - a.score).slice(0, limit);
    },
  };
  if (options.tools) index.sync(options.tools);
  return index;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new TrestleError(
      `'${name}' must be a positive integer, got ${String(value)}`,
      Code.InvalidArgument,
    );
  return value;
}
