/**
 * A JSON-RPC error to answer a request with. The dispatcher sends `code`, `message` and `data` as they are
 * (the SDK's McpError would prefix the message with "MCP error N:").
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** MCP's error code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;
