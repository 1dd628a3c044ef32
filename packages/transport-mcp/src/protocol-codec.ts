import type { ToolReference } from "@trestle/core";
import type { ToolInvokeRequest } from "@trestle/proto";
import {
  type DecodedToolReply,
  decodeResourceReply,
  decodeToolReply,
  type McpResourceContents,
} from "./content-encoding.js";
import { buildMcpToolRequest } from "./tool-request.js";
import { parseMcpToolUri } from "./tool-uri.js";

/**
 * How a router writes calls for this transport and reads its replies, in the shape of the bridge's protocol
 * codec: a catalog tool whose `uri` is `mcp://<forward>/tools/<name>` is called with its arguments' JSON types
 * intact, and replies come back as the MCP content blocks, structured content and resource contents the
 * upstream sent.
 *
 * @example
 * ```ts
 * const invoker = createInvokerBridge({ resolver, transports, events, codecs: { mcp: mcpProtocolCodec } });
 * ```
 */
export const mcpProtocolCodec = {
  /** `tools/call` of the tool its `uri` names, with `args` as they came. */
  toolRequest(
    args: Readonly<Record<string, unknown>>,
    tool: ToolReference,
    requestId: string,
  ): ToolInvokeRequest {
    const { forward, toolName } = parseMcpToolUri(tool.uri);
    return buildMcpToolRequest({ forward, toolName, arguments: { ...args }, requestId });
  },
  /** The upstream's content blocks and structured content. */
  toolResult(content: readonly string[]): DecodedToolReply {
    return decodeToolReply(content);
  },
  /** The upstream's text and blob contents, each with its own URI and MIME type. */
  resourceContents(
    content: readonly string[],
    defaults: { uri: string; mimeType?: string },
  ): McpResourceContents[] {
    return decodeResourceReply(content, defaults);
  },
} as const;
