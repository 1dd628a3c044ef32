/**
 * Tool search for large MCP catalogs: an index over tools, kept current as the catalog changes, and the
 * `search_tools` / `call_tool` tools a namespace offers in place of its full list.
 *
 * @packageDocumentation
 */
export {
  CALL_TOOL_NAME,
  type CallToolArguments,
  callToolDefinition,
  type McpToolDefinition,
  parseCallToolArguments,
  parseSearchToolsArguments,
  SEARCH_TOOLS_NAME,
  type SearchToolsArguments,
  type SearchToolsOptions,
  searchToolsDefinition,
  searchToolsResult,
} from "./search-tools.js";
export { THESAURUS } from "./thesaurus.js";
export type { IndexableTool } from "./tool-document.js";
export {
  createToolIndex,
  type ToolIndex,
  type ToolIndexChanges,
  type ToolIndexOptions,
  type ToolSearchOptions,
  type ToolSearchResult,
} from "./tool-index.js";
