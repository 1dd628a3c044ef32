import type { ToolCall } from "@trestle/core";
import type { ToolInvokeRequest } from "@trestle/proto";
import { type ToolCallParts, toolCallParts } from "./tool-call-parts.js";

/**
 * The `ToolInvokeRequest` for a call, exactly as contract §4 prescribes:
 * - `uri`: the tool's uri, verbatim (the capability expands any template in it);
 * - `arguments`, `headers`, `body`: as {@link toolCallParts} splits the call's JSON arguments
 *   (`wanaku_meta_*` and `wanaku_auth_*` to headers, nulls dropped, values as text, the `wanaku_body`
 *   argument as the body where the input schema declares it);
 * - `configuration_uri`, `secrets_uri`: the tool's, or "";
 * - `request_id`: the caller's request id.
 *
 * It does not validate required arguments: see `validateRequiredArguments` in `@trestle/core/catalog`. `parts`, when the
 * caller has them already, must be `toolCallParts(call.arguments, call.tool)`.
 *
 * @throws TrestleError `InvalidArgument` when an argument value cannot be turned into text.
 */
export function buildToolInvokeRequest(
  call: ToolCall,
  requestId = "",
  parts: ToolCallParts = toolCallParts(call.arguments, call.tool),
): ToolInvokeRequest {
  // The message written whole rather than by `create`, which fills each field with its zero and copies the init's
  // over: the same object (every field set, in the schema's order), at a few µs less on every call.
  return {
    $typeName: "ai.wanaku.tool.v1.ToolInvokeRequest",
    uri: call.tool.uri,
    body: parts.body,
    arguments: parts.arguments,
    configurationUri: call.tool.configurationURI ?? "",
    secretsUri: call.tool.secretsURI ?? "",
    headers: parts.headers,
    requestId,
  };
}
