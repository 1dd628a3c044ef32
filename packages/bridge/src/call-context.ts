import type {
  CallOptions,
  CallOutcomeListener,
  ServiceResolver,
  ToolCallEventSink,
  ToolReference,
  TransportSelector,
} from "@trestle/core";
import type { ToolInvokeRequest } from "@trestle/proto";

/** What the caller knows about one MCP request. */
export interface CallContext {
  /** The MCP JSON-RPC id as a string: sent as `request_id` and as `x-wanaku-request-id` metadata. */
  requestId?: string;
  /** The MCP session (or stdio connection) id, recorded in events. */
  connectionId?: string;
  /** The namespace the call was made in, recorded in events. */
  namespace?: string;
  /** MCP cancellation: aborting it cancels the call on the capability service. */
  signal?: AbortSignal;
  /** Extra call metadata sent to the capability (e.g. `traceparent`, forwarded headers). */
  metadata?: Record<string, string>;
  /** Deadline of the call on the wire, in milliseconds; the transport's default when absent. */
  timeoutMs?: number;
  /**
   * The name recorded in events for a call that has no catalog tool behind it (code execution). Defaults to
   * `{engineType}/{language}`.
   */
  toolName?: string;
}

/**
 * One block of a tool result: a text block from capability services; any MCP content block (image, audio,
 * resource, resource link…) from a protocol codec.
 */
export interface ToolResultContent {
  type: string;
  text?: string;
  [field: string]: unknown;
}

/** An MCP `CallToolResult`-shaped value (no MCP SDK dependency here). */
export interface ToolCallResult {
  content: ToolResultContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** One piece of a resource's contents, shaped as MCP's `TextResourceContents` or `BlobResourceContents`. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/**
 * How calls to services of one protocol are written and read where they differ from the Wanaku contract:
 * a forwarded MCP server takes the call's arguments with their JSON types and answers with MCP content blocks,
 * which the contract's string maps and string lists cannot carry as they are. The transport package of the
 * protocol says how it packs them; the composition root hands the bridges a codec per protocol.
 */
export interface ProtocolCodec {
  /** The request for a tool call (instead of the contract's, whose arguments are all strings). */
  toolRequest?(
    args: Readonly<Record<string, unknown>>,
    tool: ToolReference,
    requestId: string,
  ): ToolInvokeRequest;
  /** The result a successful reply stands for (instead of one text block per content string). */
  toolResult?(content: readonly string[]): Omit<ToolCallResult, "isError">;
  /** The contents a resource reply stands for (instead of one text content per string). */
  resourceContents?(
    content: readonly string[],
    defaults: { uri: string; mimeType?: string },
  ): ResourceContents[];
}

/** The collaborators every bridge needs; the composition root passes them in. */
export interface BridgeDependencies {
  /** Chooses the capability service instance for each call. */
  resolver: ServiceResolver;
  /** Chooses the transport that reaches a service. */
  transports: TransportSelector;
  /** Receives STARTED, COMPLETED and FAILED events, already redacted. */
  events: ToolCallEventSink;
  /** Told when each call to a service starts and ends, so a resolver can track load and failures. */
  outcomes?: CallOutcomeListener;
  /** Codecs by protocol (`ServiceTarget.protocol`), for services that do not speak the Wanaku contract. */
  codecs?: Readonly<Record<string, ProtocolCodec>>;
  /** Milliseconds since the epoch; `Date.now` by default. */
  clock?: () => number;
  /** New event ids; `crypto.randomUUID` by default. */
  newId?: () => string;
}

/** The codec for the target's protocol, if one was given. */
export function codecFor(deps: BridgeDependencies, protocol: string | undefined): ProtocolCodec | undefined {
  return protocol === undefined ? undefined : deps.codecs?.[protocol];
}

/** The transport call options a call context means. */
export function callOptionsFor(context: CallContext | undefined, timeoutMs?: number): CallOptions {
  const options: CallOptions = {};
  if (context?.signal) options.signal = context.signal;
  const deadline = context?.timeoutMs ?? timeoutMs;
  if (deadline !== undefined) options.timeoutMs = deadline;
  if (context?.requestId) options.requestId = context.requestId;
  if (context?.metadata) options.metadata = { ...context.metadata };
  return options;
}
