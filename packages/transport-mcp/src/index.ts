/**
 * The MCP transport of Trestle: a `BridgeTransport` that fronts existing MCP servers, spawned over stdio or
 * reached over Streamable HTTP, mapping core's protocol-neutral calls to MCP one to one in the upstream's era:
 * MCP 2026-07-28 (stateless, `input_required`) when `server/discover` says the upstream speaks it, the legacy
 * revisions (`initialize`, SDK v1 client) otherwise; plus the helpers the router needs to import an upstream's
 * catalog.
 *
 * @packageDocumentation
 */

export { SANDBOX_HOME } from "./bwrap-arguments.js";
export { codeForJsonRpcError } from "./mcp-failure.js";
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
export {
  type McpEra,
  MODERN_PROTOCOL_VERSION,
} from "./modern-era.js";
export { DEFAULT_MAX_PER_CALL_PROCESSES, type PerCallLimit } from "./spawn-limit.js";
export {
  createStdioSandbox,
  DEFAULT_BWRAP_PATH,
  type StdioLaunch,
  type StdioSandbox,
  type StdioSandboxOptions,
  type UnconfinedStartEvent,
} from "./stdio-sandbox.js";
export { DEFAULT_HANDSHAKE_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS } from "./timeouts.js";
export { MCP_TOOL_URI_SCHEME, type McpToolAddress, mcpToolUri, parseMcpToolUri } from "./tool-uri.js";
export {
  listUpstreamCatalog,
  type UpstreamCatalog,
  type UpstreamCatalogOptions,
  type UpstreamCatalogWatch,
  type WatchedPromptResult,
  type WatchUpstreamCatalogOptions,
  watchUpstreamCatalog,
} from "./upstream-catalog.js";
export type { McpListKind, McpLogMessage } from "./upstream-connection.js";
