import {
  type Interceptor,
  type ToolResult,
  type TransportRequest,
  type TransportResponse,
  translationRecorderKey,
} from "@trestle/core";
import { encodeToolResult } from "./wire/results.js";
import { isMcpRevision, LATEST_MCP_REVISION } from "./wire/revisions.js";

/**
 * An interceptor that writes on a tool call's translation report what its MCP client's revision cannot carry of
 * the result (the client leg of the report), so that the call's event records it. It changes nothing: the front
 * encodes the result when it answers (`encodeToolResult` in the tools/call handler). It runs here, inside
 * `callEvents`, because the event is made when the call settles there, before the front sees the result (at once
 * when someone follows the event stream). It asks the same encoder, whose common path is a check of each block:
 * only a client of an older revision whose result loses something pays for the translation twice.
 *
 * @example
 * ```ts
 * interceptTransports(selector, [callEvents({ sink: hub }), revisionNotes(), scrubSecrets()]);
 * ```
 */
export function revisionNotes(): Interceptor {
  return (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      if (request.method !== "callTool") return next(request);
      const recorder = request.options.contextValues?.get(translationRecorderKey);
      const revision = recorder?.client.protocol === "mcp" ? recorder.client.version : undefined;
      // The newest revision carries everything a neutral result holds.
      if (!recorder || !isMcpRevision(revision) || revision === LATEST_MCP_REVISION) return next(request);
      return (next(request) as Promise<ToolResult>).then((result) => {
        // A backend's input request is answered by the front in the client's own way, not encoded.
        if (result.inputRequired) return result;
        for (const note of encodeToolResult(result, revision).notes) recorder.note(note);
        return result;
      }) as TransportResponse<R>;
    };
}
