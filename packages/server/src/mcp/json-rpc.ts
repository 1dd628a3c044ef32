import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC and MCP error codes the router answers with. */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Transport-level refusal (bad session, bad headers): the SDK's ConnectionClosed family. */
  ServerError: -32000,
} as const;

/** A JSON-RPC error object, ready to send. */
export function jsonRpcError(
  code: number,
  message: string,
  id: RequestId | null = null,
): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** The kind of one incoming JSON-RPC message, after a structural check (not a schema parse: that is the SDK's). */
export type IncomingKind = "request" | "notification" | "response";

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Classifies one message, or explains why it is not a JSON-RPC 2.0 message. Cheap enough for the hot path:
 * the SDK validates params against the method's schema afterwards.
 */
export function classifyMessage(value: unknown): { kind: IncomingKind } | { error: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { error: "a message must be a JSON object" };
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return { error: 'the "jsonrpc" member must be exactly "2.0"' };
  if ("method" in m) {
    if (typeof m.method !== "string" || m.method.length === 0)
      return { error: 'the "method" member must be a non-empty string' };
    if (
      m.params !== undefined &&
      (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))
    ) {
      return { error: 'the "params" member must be an object' };
    }
    const meta = (m.params as { _meta?: unknown } | undefined)?._meta;
    if (meta !== undefined) {
      if (typeof meta !== "object" || meta === null || Array.isArray(meta))
        return { error: 'the "_meta" member must be an object' };
      const token = (meta as { progressToken?: unknown }).progressToken;
      if (
        token !== undefined &&
        typeof token !== "string" &&
        !(typeof token === "number" && Number.isFinite(token))
      ) {
        return { error: 'the "progressToken" must be a string or a number' };
      }
    }
    if (!("id" in m)) return { kind: "notification" };
    if (!isRequestId(m.id)) return { error: 'the "id" member must be a string or a number' };
    return { kind: "request" };
  }
  if ("id" in m && ("result" in m || "error" in m)) return { kind: "response" };
  return { error: 'a message needs a "method" (request or notification) or a "result"/"error" (response)' };
}

/** One incoming message with its kind. */
export interface ClassifiedMessage {
  kind: IncomingKind;
  message: JSONRPCMessage & Record<string, unknown>;
}
