/**
 * The MCP transport of Trestle: a `BridgeTransport` that fronts existing MCP servers, spawned over stdio or
 * reached over Streamable HTTP, with the MCP SDK client, mapping core's protocol-neutral calls to MCP one to
 * one; plus the helpers the router needs to import an upstream's catalog.
 *
 * @packageDocumentation
 */
export { codeForJsonRpcError, MCP_ERROR_CODE_METADATA_KEY } from "./mcp-failure.js";
export {
  createMcpTransport,
  type McpListChangedEvent,
  type McpTransportOptions,
  type McpUpstreamDirectory,
  type McpUpstreamLogEvent,
  type McpUpstreamStderrEvent,
} from "./mcp-transport.js";
export {
  describeUpstream,
  type McpHttpUpstream,
  type McpStdioUpstream,
  type McpUpstream,
  programName,
} from "./mcp-upstream.js";
export { DEFAULT_HANDSHAKE_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS } from "./timeouts.js";
export { MCP_TOOL_URI_SCHEME, type McpToolAddress, mcpToolUri, parseMcpToolUri } from "./tool-uri.js";
export {
  listUpstreamCatalog,
  type UpstreamCatalog,
  type UpstreamCatalogOptions,
  type UpstreamCatalogWatch,
  type WatchUpstreamCatalogOptions,
  watchUpstreamCatalog,
} from "./upstream-catalog.js";
export type { McpListKind, McpLogMessage } from "./upstream-connection.js";
