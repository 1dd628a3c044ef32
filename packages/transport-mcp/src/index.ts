/**
 * The MCP transport of Trestle: a `BridgeTransport` that fronts existing MCP servers, spawned over stdio or
 * reached over Streamable HTTP, with the MCP SDK client; plus the helpers the router needs to import an
 * upstream's catalog, build requests for it and restore MCP content from its replies.
 *
 * @packageDocumentation
 */
export { type McpCallListeners, type McpProgress, withMcpCallListeners } from "./call-listeners.js";
export {
  type DecodedToolReply,
  decodeMcpContent,
  decodeResourceReply,
  decodeToolReply,
  type EncodedStructuredContent,
  encodeMcpContent,
  encodeResourceResult,
  encodeToolResult,
  MCP_CONTENT_MARKER,
  type McpResourceContents,
} from "./content-encoding.js";
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
export { mcpProtocolCodec } from "./protocol-codec.js";
export { DEFAULT_HANDSHAKE_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS } from "./timeouts.js";
export { buildMcpToolRequest, type McpToolRequestInit, mcpToolArguments } from "./tool-request.js";
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
