import type { ClientCapabilities, Implementation } from "@modelcontextprotocol/sdk/types.js";
import {
  Code,
  type InputAnswers,
  type InputRequest,
  type InputRequired,
  type JsonObject,
  TrestleError,
} from "@trestle/core";
import type { FailureSubject } from "./mcp-failure.js";

/** The first (and today the only) MCP revision of the stateless era: no `initialize`, `_meta` on every request. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** `_meta` keys of the 2026-07-28 era. */
export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
export const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";
export const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";
export const SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo";
export const SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId";

/**
 * JSON-RPC errors only a 2026-07-28 server answers with: header mismatch, missing client capability, unsupported
 * protocol version. An upstream that answers a probe with one of them is modern, whatever else it says.
 */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([-32020, -32021, -32022]);

/** Which era an upstream speaks: `modern` (2026-07-28, stateless) or `legacy` (`initialize` and a session). */
export type McpEra = "modern" | "legacy";

/** What the router tells a modern upstream about itself on every request. */
export interface ModernIdentity {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  /** Set only when someone listens for the request's log messages (the server sends none without it). */
  logLevel?: string;
}

/** The `_meta` a 2026-07-28 request carries: the version, the client's capabilities and identity. */
export function modernMeta(identity: ModernIdentity, extra?: JsonObject): JsonObject {
  return {
    ...(extra ?? {}),
    [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
    [CLIENT_CAPABILITIES_META_KEY]: identity.capabilities as JsonObject,
    [CLIENT_INFO_META_KEY]: identity.clientInfo as unknown as JsonObject,
    ...(identity.logLevel ? { [LOG_LEVEL_META_KEY]: identity.logLevel } : {}),
  };
}

const KIND_OF_METHOD: Record<string, InputRequest["kind"]> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** The capabilities that let an upstream ask for every kind of input. */
export const ALL_INPUT_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: {} },
  sampling: {},
  roots: {},
};

/**
 * The upstream's `input_required` result as core's {@link InputRequired}: each request under its own key, its
 * method turned into a kind, its params as they are; `requestState` verbatim. `undefined` for a complete result.
 *
 * @throws TrestleError `Internal` when the upstream asks with a method that is not an input request, or in a
 * shape that is not one.
 */
export function inputRequiredOf(result: JsonObject, subject: FailureSubject): InputRequired | undefined {
  if (result.resultType !== "input_required") return undefined;
  const out: InputRequired = { requests: {} };
  const requests = result.inputRequests;
  if (
    requests !== undefined &&
    (requests === null || typeof requests !== "object" || Array.isArray(requests))
  ) {
    throw new TrestleError(
      `The MCP server ${subject.label} answered input_required with inputRequests that are not an object`,
      Code.Internal,
    );
  }
  for (const [key, request] of Object.entries((requests ?? {}) as Record<string, unknown>)) {
    const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
    const kind = typeof method === "string" ? KIND_OF_METHOD[method] : undefined;
    if (!kind) {
      throw new TrestleError(
        `The MCP server ${subject.label} asked for input with '${String(method).slice(0, 100)}', which is not elicitation/create, sampling/createMessage or roots/list`,
        Code.Internal,
      );
    }
    const safeParams = params && typeof params === "object" && !Array.isArray(params) ? params : {};
    out.requests[key] = { kind, params: safeParams as JsonObject };
  }
  if (typeof result.requestState === "string") out.state = result.requestState;
  if (Object.keys(out.requests).length === 0 && out.state === undefined) {
    throw new TrestleError(
      `The MCP server ${subject.label} answered input_required with neither inputRequests nor requestState`,
      Code.Internal,
    );
  }
  return out;
}

/** The params that carry a call's answers to an earlier `input_required`: `inputResponses` and `requestState`. */
export function inputResponseParams(input: InputAnswers | undefined): JsonObject {
  if (!input) return {};
  return {
    inputResponses: input.responses as JsonObject,
    ...(input.state !== undefined ? { requestState: input.state } : {}),
  };
}
