import { Code, type JsonObject, type ToolReference, type ToolResult, TrestleError } from "@trestle/core";
import {
  CALL_TOOL_NAME,
  callToolDefinition,
  createToolIndex,
  type McpToolDefinition,
  parseCallToolArguments,
  parseSearchToolsArguments,
  SEARCH_TOOLS_NAME,
  searchToolsDefinition,
  searchToolsResult,
  type ToolIndex,
} from "@trestle/tool-search";
import type { CallService } from "./call-service.js";
import type { Caller } from "./caller.js";
import type { CatalogView } from "./catalog-view.js";

/** When a namespace lists `search_tools` and `call_tool` instead of its tools. */
export interface ToolSearchSettings {
  /** In every namespace. */
  enabled: boolean;
  /** In each namespace whose listing (as the caller may see it) has more tools than this. */
  threshold?: number | undefined;
  /** In these namespaces whatever their size. */
  namespaces: readonly string[];
  /** Results of a search that names no `limit`. */
  maxResults: number;
}

/**
 * The namespace label that turns tool search on for a namespace managed through the management API
 * (`"labels": {"trestle.io/tool-search": "true"}`).
 */
export const TOOL_SEARCH_LABEL = "trestle.io/tool-search";

/** The `type` of the two tool search tools: the router serves them itself. */
export const TOOL_SEARCH_TOOL_TYPE = "trestle.tool-search";

function toReference(definition: McpToolDefinition): ToolReference {
  return {
    name: definition.name,
    type: TOOL_SEARCH_TOOL_TYPE,
    uri: "",
    description: definition.description,
    inputSchema: definition.inputSchema as ToolReference["inputSchema"],
    ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}),
  };
}

function invalid(error: unknown): ToolResult {
  const message = error instanceof TrestleError ? error.rawMessage : String(error);
  return { isError: true, content: [{ type: "text", text: message }] };
}

/**
 * Tool search over a call service: in a namespace where it is on, `tools/list` (every front) offers `search_tools`,
 * `call_tool` and the code execution tool (when an engine is registered) instead of every tool. `search_tools`
 * searches the namespace's tools that the caller may see (the list policy filters every result) and answers
 * `{ tools: [...] }`, best first (on: `settings`, or the namespace's {@link TOOL_SEARCH_LABEL} label); `call_tool` calls one by name through the ordinary call path, and so does a call
 * by name of any tool the caller may call. Each namespace's index is kept current with its catalog (synced when
 * its tool list changes). Everything else is the call service's.
 */
export function withToolSearch(
  calls: CallService,
  catalog: Pick<CatalogView, "listTools" | "getNamespace">,
  settings: ToolSearchSettings,
  /** A tool as `tools/list` shows it: what a search answers with. */
  listed: (tool: ToolReference) => object,
): CallService {
  const searchOptions = { defaultLimit: settings.maxResults, maxLimit: 50 };
  const searchTool = toReference(searchToolsDefinition(searchOptions));
  const callTool = toReference(callToolDefinition());
  const explicit = new Set(settings.namespaces);
  /** Each namespace's index and the catalog list it was synced with. */
  const indexes = new Map<string, { tools: readonly ToolReference[]; index: ToolIndex<ToolReference> }>();
  /** The listing with tool search, per full listing (a caller's, unchanged while the catalog is). */
  const listings = new WeakMap<readonly ToolReference[], readonly ToolReference[]>();

  const searchOn = (caller: Caller, all: readonly ToolReference[]): boolean =>
    settings.enabled ||
    explicit.has(caller.namespace) ||
    catalog.getNamespace(caller.namespace)?.labels?.[TOOL_SEARCH_LABEL] === "true" ||
    (settings.threshold !== undefined &&
      all.filter((tool) => !calls.isCodeExecution(tool)).length > settings.threshold);

  const indexOf = (namespace: string): ToolIndex<ToolReference> => {
    const tools = catalog.listTools(namespace);
    let entry = indexes.get(namespace);
    if (!entry) {
      entry = { tools, index: createToolIndex({ tools }) };
      indexes.set(namespace, entry);
    } else if (entry.tools !== tools) {
      entry.index.sync(tools);
      entry.tools = tools;
    }
    return entry.index;
  };

  const isSearchTool = (tool: ToolReference) => tool === searchTool || tool === callTool;

  async function search(caller: Caller, args: JsonObject): Promise<ToolResult> {
    let parsed: ReturnType<typeof parseSearchToolsArguments>;
    try {
      parsed = parseSearchToolsArguments(args, searchOptions);
    } catch (error) {
      return invalid(error);
    }
    const found = indexOf(caller.namespace).search(parsed.query, {
      limit: parsed.limit,
      // The list policy decides what a search may return, as it decides what a listing shows.
      filter: (tool) => calls.findTool(caller, tool.name) !== undefined,
    });
    return searchToolsResult(found.map((result) => listed(result.tool))) as unknown as ToolResult;
  }

  return {
    ...calls,
    listTools(caller) {
      const all = calls.listTools(caller);
      if (!searchOn(caller, all)) return all;
      let listing = listings.get(all);
      if (!listing) {
        listing = [searchTool, callTool, ...all.filter((tool) => calls.isCodeExecution(tool))];
        listings.set(all, listing);
      }
      return listing;
    },
    findTool(caller, name) {
      if (name === SEARCH_TOOLS_NAME || name === CALL_TOOL_NAME) {
        const tool = calls.findTool(caller, name);
        // A catalog tool of that name keeps it; tool search's own only where tool search is on.
        if (tool) return tool;
        if (!searchOn(caller, calls.listTools(caller))) return undefined;
        return name === SEARCH_TOOLS_NAME ? searchTool : callTool;
      }
      return calls.findTool(caller, name);
    },
    async callTool(caller, tool, args, options) {
      if (!isSearchTool(tool)) return calls.callTool(caller, tool, args, options);
      if (tool === searchTool) return search(caller, args);
      let parsed: ReturnType<typeof parseCallToolArguments>;
      try {
        parsed = parseCallToolArguments(args);
      } catch (error) {
        return invalid(error);
      }
      const target = calls.findTool(caller, parsed.name);
      if (!target || isSearchTool(target)) {
        return invalid(new TrestleError(`Unknown tool '${parsed.name}'`, Code.NotFound));
      }
      return calls.callTool(caller, target, parsed.arguments as JsonObject, options);
    },
  };
}
