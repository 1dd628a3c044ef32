import { Code, TrestleError } from "@trestle/core";

/** The scheme of the URIs that name an upstream MCP tool: `mcp://<forward>/tools/<toolName>`. */
export const MCP_TOOL_URI_SCHEME = "mcp:";

/** What an MCP tool URI names. */
export interface McpToolAddress {
  /** The forward (the upstream's name in the router's catalog). Informative: the target decides the upstream. */
  forward: string;
  /** The tool's name on the upstream server, exactly as its `tools/list` gave it. */
  toolName: string;
}

/**
 * The URI of tool `toolName` of forward `forward`: `mcp://<forward>/tools/<toolName>`, each part
 * percent-encoded, so any tool name (spaces, slashes, dots, Unicode) survives the round trip.
 *
 * @example
 * ```ts
 * mcpToolUri("everything", "get-sum"); // "mcp://everything/tools/get-sum"
 * ```
 */
export function mcpToolUri(forward: string, toolName: string): string {
  return `mcp://${encodeURIComponent(forward)}/tools/${encodeURIComponent(toolName)}`;
}

/**
 * Reads an MCP tool URI back into its forward and tool name.
 *
 * @throws TrestleError `InvalidArgument` when `uri` is not of the form `mcp://<forward>/tools/<toolName>`.
 */
export function parseMcpToolUri(uri: string): McpToolAddress {
  const match = /^mcp:\/\/([^/]*)\/tools\/(.+)$/.exec(uri);
  if (!match?.[2]) {
    throw new TrestleError(
      `The tool URI '${uri}' is not of the form mcp://<forward>/tools/<toolName>`,
      Code.InvalidArgument,
    );
  }
  try {
    return { forward: decodeURIComponent(match[1] ?? ""), toolName: decodeURIComponent(match[2]) };
  } catch {
    throw new TrestleError(`The tool URI '${uri}' holds an invalid percent-encoding`, Code.InvalidArgument);
  }
}
