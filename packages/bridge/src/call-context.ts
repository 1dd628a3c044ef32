import type {
  CallOptions,
  Cancellation,
  ContentBlock,
  ContextValues,
  InputAnswers,
  ToolResult,
  TranslationLeg,
  TranslationNote,
} from "@trestle/core";
import { setCancellation } from "@trestle/core/cancellation";
import type { ToolCallEventSink } from "@trestle/core/events";
import type { ServiceResolver, TransportSelector } from "@trestle/core/routing";

/** What the caller knows about one MCP request. */
export interface CallContext {
  /** The MCP JSON-RPC id as a string: sent as `request_id` and as `x-wanaku-request-id` metadata. */
  requestId?: string;
  /** The MCP session (or stdio connection) id, recorded in events. */
  connectionId?: string;
  /** The namespace the call was made in, recorded in events. */
  namespace?: string;
  /** The principal whose call it is (as the front admitted it), recorded in events. */
  principal?: string;
  /**
   * The code-mode run the call belongs to: set on a program's run and on every tool call the program makes,
   * recorded in their events (`codeRun`) so each inner call is linked to the run that made it.
   */
  codeRun?: string;
  /** MCP cancellation: aborting it cancels the call on the capability service. */
  signal?: AbortSignal;
  /**
   * The same as `signal` without an `AbortSignal` per call (core's `Cancellation`), for a front on the hot path;
   * `signal` wins when both are given (a task or a held call narrows the request's cancellation with its own).
   */
  cancellation?: Cancellation;
  /** Extra call metadata sent to the capability (e.g. `traceparent`, forwarded headers). */
  metadata?: Record<string, string>;
  /** Deadline of the call on the wire, in milliseconds; the transport's default when absent. */
  timeoutMs?: number;
  /**
   * The name recorded in events for a call that has no catalog tool behind it (code execution). Defaults to
   * `{engineType}/{language}`.
   */
  toolName?: string;
  /** Told of the call's progress, where the backend reports any (the front relays it to its client). */
  onProgress?: CallOptions["onProgress"];
  /** Told of the backend's log messages during the call. */
  onLog?: CallOptions["onLog"];
  /** Asked when the backend needs input from the user (elicitation, sampling, roots); absent: the front cannot relay it. */
  onInputRequest?: CallOptions["onInputRequest"];
  /** The client's answers when this call repeats one that ended in `inputRequired` (sent as `ToolCall.input`). */
  input?: InputAnswers;
  /** What input the client can give (see `CallOptions.inputCapabilities`). */
  inputCapabilities?: CallOptions["inputCapabilities"];
  /**
   * How a failure of the call (no service, service down, the service's error) comes back: as an `isError` result
   * (the default, what a tool call answers) or as a rejection with the same scrubbed message (a task records it as
   * failed).
   */
  failures?: "result" | "reject";
  /**
   * The protocol, version and method the client spoke to the front. A call whose backend speaks another protocol
   * (or whose front is not MCP) carries a translation report on its terminal event; absent: MCP `tools/call`.
   */
  client?: TranslationLeg;
  /** What the front's own translation of the request did (an A2A message's parts read as arguments), for the report. */
  translationNotes?: TranslationNote[];
  /**
   * Typed values the caller hands to the interceptors below the bridge (the call's principal, for the upstream's
   * credential): a fresh bag per call, to which the bridge adds its own.
   */
  contextValues?: ContextValues;
}

/** One block of a tool result: core's {@link ContentBlock} (the name the server knew it by). */
export type ToolResultContent = ContentBlock;

/** A tool call's result: core's {@link ToolResult} (the name the server knew it by). */
export type ToolCallResult = ToolResult;

/** The collaborators every bridge needs; the composition root passes them in. */
export interface BridgeDependencies {
  /** Chooses the capability service instance for each call. */
  resolver: ServiceResolver;
  /** Chooses the transport that reaches a service. */
  transports: TransportSelector;
  /** Receives STARTED, COMPLETED and FAILED events, already redacted. */
  events: ToolCallEventSink;
  /** Milliseconds since the epoch; `Date.now` by default. */
  clock?: () => number;
  /** New event ids; `crypto.randomUUID` by default. */
  newId?: () => string;
}

/** The transport call options a call context means. */
export function callOptionsFor(context: CallContext | undefined, timeoutMs?: number): CallOptions {
  const options: CallOptions = {};
  if (context?.signal) options.signal = context.signal;
  else if (context?.cancellation) setCancellation(options, context.cancellation);
  const deadline = context?.timeoutMs ?? timeoutMs;
  if (deadline !== undefined) options.timeoutMs = deadline;
  if (context?.requestId) options.requestId = context.requestId;
  if (context?.metadata) options.metadata = { ...context.metadata };
  if (context?.onProgress) options.onProgress = context.onProgress;
  if (context?.onLog) options.onLog = context.onLog;
  if (context?.onInputRequest) options.onInputRequest = context.onInputRequest;
  if (context?.inputCapabilities) options.inputCapabilities = context.inputCapabilities;
  if (context?.contextValues) options.contextValues = context.contextValues;
  return options;
}
