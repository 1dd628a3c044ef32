import type { ToolCall, ToolCallDescription, ToolReference } from "@trestle/core";
import { REDACTED, redactArguments, redactBody, redactHeaders } from "@trestle/core/redaction";
import {
  AUTH_ARGUMENT_PREFIX,
  META_ARGUMENT_PREFIX,
  type ToolCallParts,
  toolCallParts,
} from "./tool-call-parts.js";

/**
 * About how much memory a call's recorded request holds until its event is built: its parts' texts, and as much
 * again for the arguments they were made from.
 */
function partsBytes(parts: ToolCallParts): number {
  let bytes = parts.body.length;
  for (const name in parts.arguments) bytes += name.length + (parts.arguments[name] as string).length;
  for (const name in parts.headers) bytes += name.length + (parts.headers[name] as string).length;
  return 2 * bytes;
}

/** The arguments Wanaku sends as arguments (not as headers), redacted; none when one cannot be made text. */
function recordedArguments(args: Readonly<Record<string, unknown>>): Record<string, string> {
  const sent: Record<string, unknown> = {};
  for (const name in args) {
    if (!Object.hasOwn(args, name)) continue;
    if (name.startsWith(AUTH_ARGUMENT_PREFIX) || name.startsWith(META_ARGUMENT_PREFIX)) continue;
    sent[name] = args[name];
  }
  try {
    return redactArguments(sent);
  } catch {
    return {};
  }
}

/**
 * A Wanaku tool call as the router records it. It keeps the call's arguments and tool, not its parts: a history
 * keeps a thousand records, and the parts are split again only when an event is built. A class, not an object of
 * closures: one per recorded call.
 */
class WanakuToolCallDescription implements ToolCallDescription {
  readonly secretValues: readonly string[];
  readonly estimatedBytes: number;
  readonly #arguments: Readonly<Record<string, unknown>>;
  readonly #tool: ToolReference;

  constructor(args: Readonly<Record<string, unknown>>, tool: ToolReference, parts: ToolCallParts) {
    this.secretValues = parts.secretValues;
    this.estimatedBytes = partsBytes(parts);
    this.#arguments = args;
    this.#tool = tool;
  }

  record() {
    const parts = toolCallParts(this.#arguments, this.#tool);
    const headers = redactHeaders(parts.headers);
    // A header filled from `wanaku_auth_*` is a credential whatever its name.
    for (const name of parts.authHeaders) headers[name] = REDACTED;
    return { arguments: recordedArguments(this.#arguments), headers, body: redactBody(parts.body).text };
  }
}

/**
 * How a Wanaku transport sends `call` (see `BridgeTransport.describeToolCall`): the secret values among its
 * arguments, headers and body (`wanaku_auth_*` values, secret-named arguments and header properties, credential
 * headers, secret fields of the body), and the request as an event records it — the arguments without the
 * `wanaku_meta_*`/`wanaku_auth_*` ones, the headers with credentials redacted (every `wanaku_auth_*` one), the
 * body with its secret fields redacted. `parts`, when the caller has them already, must be
 * `toolCallParts(call.arguments, call.tool)`.
 *
 * @throws TrestleError `InvalidArgument` when an argument value cannot be turned into text.
 */
export function describeWanakuToolCall(
  call: ToolCall,
  parts: ToolCallParts = toolCallParts(call.arguments, call.tool),
): ToolCallDescription {
  return new WanakuToolCallDescription(call.arguments, call.tool, parts);
}
