import type { Interceptor, ToolResult, TransportRequest, TransportResponse } from "@trestle/core";
import { translationRecorderKey } from "@trestle/core";
import {
  encodeCallToolResult,
  encodeCompleteResult,
  encodeGetPromptResult,
  encodeImplementation,
  encodeNotification,
  encodePromptsList,
  encodeReadResourceResult,
  encodeResourcesList,
  encodeResourceTemplatesList,
  encodeResult,
  encodeServerCapabilities,
  encodeToolsList,
  isMcpRevision,
  LATEST_MCP_REVISION,
  type McpRevision,
  type WireCallToolResult,
  type WireNotification,
  type WireResult,
} from "./revision-codec.js";

type Encoder = (result: WireResult, revision: McpRevision) => WireResult;

/** Per method, how a result is put into a revision's shape (what the revision does not define is translated). */
const ENCODERS: Record<string, Encoder> = {
  "tools/call": (r, v) => encodeCallToolResult(r as never, v).value,
  "prompts/get": (r, v) => encodeGetPromptResult(r as never, v).value,
  "resources/read": (r, v) => encodeReadResourceResult(r as never, v).value,
  "completion/complete": (r, v) => encodeCompleteResult(r as never, v).value,
  "tools/list": (r, v) => encodeToolsList(r as never, v).value,
  "resources/list": (r, v) => encodeResourcesList(r as never, v).value,
  "resources/templates/list": (r, v) => encodeResourceTemplatesList(r as never, v).value,
  "prompts/list": (r, v) => encodePromptsList(r as never, v).value,
  initialize: (r, v) => {
    const result = r as WireResult & { serverInfo?: never; capabilities?: never };
    return {
      ...encodeResult(result, v).value,
      ...(result.serverInfo ? { serverInfo: encodeImplementation(result.serverInfo, v).value } : {}),
      ...(result.capabilities
        ? { capabilities: encodeServerCapabilities(result.capabilities, v).value }
        : {}),
    };
  },
  "server/discover": (r, v) => {
    const result = r as WireResult & { capabilities?: never };
    return {
      ...encodeResult(result, v).value,
      ...(result.capabilities
        ? { capabilities: encodeServerCapabilities(result.capabilities, v).value }
        : {}),
    };
  },
};

/**
 * A result of `method` as `revision` defines it. Tool results were encoded (and their losses noted on the call's
 * event) by {@link revisionCodec} already; encoding them again changes nothing.
 */
export function encodeResultFor(method: string, result: unknown, revision: string): unknown {
  if (!isMcpRevision(revision) || typeof result !== "object" || result === null) return result;
  const kind = (result as { resultType?: unknown }).resultType;
  // A task handle or a request for input is no result of the method: only its envelope is the revision's.
  const encode = kind === "task" || kind === "input_required" ? undefined : ENCODERS[method];
  return encode ? encode(result as WireResult, revision) : encodeResult(result as WireResult, revision).value;
}

/** A notification as `revision` defines it, or `undefined` when that revision has no such notification. */
export function encodeNotificationFor(
  notification: { method: string; params?: Record<string, unknown> },
  revision: string,
): { method: string; params?: Record<string, unknown> } | undefined {
  if (!isMcpRevision(revision)) return notification;
  return encodeNotification(notification as WireNotification, revision).value as
    | { method: string; params?: Record<string, unknown> }
    | undefined;
}

/**
 * An interceptor that puts a tool result into the shape of the revision its MCP client speaks (the client leg
 * of the call's translation report) and notes on the report what did not carry over, so that the call's event
 * records it. Compose it right inside `callEvents`.
 */
export function revisionCodec(): Interceptor {
  return (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      if (request.method !== "callTool") return next(request);
      const recorder = request.options.contextValues?.get(translationRecorderKey);
      const revision = recorder?.client.protocol === "mcp" ? recorder.client.version : undefined;
      if (!revision || !isMcpRevision(revision) || revision === LATEST_MCP_REVISION) return next(request);
      return (next(request) as Promise<ToolResult>).then((result) => {
        // A backend's input request is answered by the front in the client's own way, not encoded here.
        if (result.inputRequired) return result;
        const { value, notes } = encodeCallToolResult(result as unknown as WireCallToolResult, revision);
        for (const note of notes) recorder?.note(note);
        return value as unknown as ToolResult;
      }) as TransportResponse<R>;
    };
}
