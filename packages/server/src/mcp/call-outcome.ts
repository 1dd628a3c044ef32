import { Code, type JsonObject, type ToolResult, TrestleError } from "@trestle/core";
import { requireInputCapabilities } from "./input-relay.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ModernErrorCode } from "./protocol-era.js";
import { ProtocolError } from "./protocol-error.js";

/** What a backend's refusal says the client lacks (a `FailedPrecondition` with that typed detail), if it says. */
function requiredClientCapabilities(error: unknown): JsonObject | undefined {
  if (!(error instanceof TrestleError) || error.code !== Code.FailedPrecondition) return undefined;
  return error.findDetail("required-client-capabilities")?.capabilities;
}

/**
 * A failure of the call service as the MCP answer it becomes: arguments of the wrong shape are -32602, a backend
 * refusing input the client did not declare is -32021 naming the capability; anything else goes on as it is (the
 * dispatcher answers it -32603 with its message).
 */
export function asProtocolError(error: unknown, subject: string): unknown {
  if (error instanceof ProtocolError) return error;
  const required = requiredClientCapabilities(error);
  if (required) {
    return new ProtocolError(
      ModernErrorCode.MissingRequiredClientCapability,
      `Missing required client capability: ${subject} needs ${Object.keys(required).join(" and ")}, which the client did not declare`,
      { requiredCapabilities: required },
    );
  }
  if (error instanceof TrestleError && error.code === Code.InvalidArgument) {
    return new ProtocolError(JsonRpcErrorCode.InvalidParams, `Invalid params: ${error.rawMessage}`);
  }
  return error;
}

/**
 * A refusal a tool call answers with as a tool result (`isError`), which the model reads and can act on: the
 * router's policy, or the principal's bound on what it may run. `undefined` for any other failure.
 */
export function refusalResult(error: unknown): ToolResult | undefined {
  if (
    !(error instanceof TrestleError) ||
    (error.code !== Code.PermissionDenied && error.code !== Code.ResourceExhausted)
  ) {
    return undefined;
  }
  return { isError: true, content: [{ type: "text", text: error.rawMessage }] };
}

/**
 * A failed call as the JSON-RPC error its task records: a protocol error keeps its code (an MCP backend's own
 * code where it gave one, from the error's typed `json-rpc` detail; another protocol's code is not MCP's), any other
 * failure is -32603 with the router's sentence about it.
 */
export function asTaskError(error: unknown): unknown {
  if (error instanceof ProtocolError || !(error instanceof TrestleError)) return error;
  const upstream = error.findDetail("json-rpc");
  const code =
    upstream?.protocol === "mcp" && Number.isSafeInteger(upstream.code) && upstream.code < 0
      ? upstream.code
      : JsonRpcErrorCode.InternalError;
  return new ProtocolError(code, error.rawMessage);
}

/**
 * A backend's answer that asks for input the client cannot give, yet says something itself (an A2A agent's
 * question as text, with the handle to continue the conversation): that answer, as a complete result. `undefined`
 * when the client can answer, or when the backend said nothing (the caller refuses with -32021 then).
 */
export function answerWithoutInput(
  result: ToolResult,
  declared: Readonly<Record<string, unknown>>,
): ToolResult | undefined {
  if (!result.inputRequired || result.content.length === 0) return undefined;
  try {
    requireInputCapabilities(Object.values(result.inputRequired.requests), declared);
    return undefined;
  } catch {
    const { inputRequired: _, ...answer } = result;
    return answer;
  }
}

/** The input a client declared it can give (elicitation, sampling, roots), as the backend is told. */
export function inputCapabilitiesOf(declared: Readonly<Record<string, unknown>>): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const name of ["elicitation", "sampling", "roots"]) {
    const value = declared[name];
    if (typeof value === "object" && value !== null && !Array.isArray(value)) out[name] = value as JsonObject;
  }
  return out;
}
