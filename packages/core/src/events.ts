import { Code, TrestleError } from "./error.js";
import type { TranslationReport } from "./translation.js";

export type { TranslationLeg, TranslationNote, TranslationReport } from "./translation.js";

/** Why a routed call failed, as Wanaku's tool-call events classify it. */
export type ErrorCategory =
  | "none"
  | "service_unavailable"
  | "tool_definition_error"
  | "invalid_arguments"
  | "execution_error"
  | "unknown";

/**
 * The category of a failure, from its code alone (never from message text): cancelled by the client →
 * `none`;
 * unreachable, deadline, starting, limits → `service_unavailable`; bad arguments → `invalid_arguments`;
 * unknown tool, resource or service, unimplemented → `tool_definition_error`; an error the service reported
 * (internal, …) → `execution_error`; anything that is not a `TrestleError` → `unknown`.
 */
export function categorizeError(error: unknown): ErrorCategory {
  if (!(error instanceof TrestleError)) return "unknown";
  switch (error.code) {
    case Code.Canceled:
      return "none";
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    case Code.FailedPrecondition:
    case Code.ResourceExhausted:
      return "service_unavailable";
    case Code.InvalidArgument:
    case Code.OutOfRange:
      return "invalid_arguments";
    case Code.NotFound:
    case Code.Unimplemented:
      return "tool_definition_error";
    case Code.Unknown:
      return "unknown";
    default:
      return "execution_error";
  }
}

/** What kind of routed call an event describes. */
export type ToolCallKind = "tool" | "code-execution";

interface ToolCallEventBase {
  /** Shared by the STARTED event and its COMPLETED or FAILED event. */
  eventId: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  toolName: string;
  /** The tool's type (the service name), or the engine type for code execution. */
  toolType: string;
  kind: ToolCallKind;
  /** The namespace the call was made in ("" for the default). */
  namespace?: string;
  /** The MCP request id. */
  requestId?: string;
  /** The principal whose call it is (a token's name, `anonymous` on a router without tokens, `stdio`). */
  principal?: string;
  /**
   * The code-mode run the call belongs to: the same on a program's code execution and on each tool call the
   * program made through its `tools`.
   */
  codeRun?: string;
}

/** A routed call started. Every field is already redacted. */
export interface ToolCallStartedEvent extends ToolCallEventBase {
  type: "started";
  /** The MCP session or stdio connection the call came from. */
  connectionId?: string;
  serviceId?: string;
  serviceAddress?: string;
  /** Arguments after redaction: reserved names removed, secret-looking keys replaced. */
  arguments: Record<string, string>;
  /** Headers after redaction. */
  headers: Record<string, string>;
  body?: string;
  configurationURI?: string;
  /** Always `[REDACTED]` when the tool has secrets. */
  secretsURI?: string;
  /** Code execution only: always `[CODE]`. */
  code?: string;
  /** Code execution only: how many arguments were passed (their values are not recorded). */
  argumentCount?: number;
}

/** A routed call completed; `isError` is false. */
export interface ToolCallCompletedEvent extends ToolCallEventBase {
  type: "completed";
  isError: false;
  content: string[];
  /** Milliseconds from STARTED. */
  duration: number;
  translation?: TranslationReport;
}

/** A routed call failed. */
export interface ToolCallFailedEvent extends ToolCallEventBase {
  type: "failed";
  isError: true;
  content: string[];
  duration: number;
  errorCategory: ErrorCategory;
  errorMessage: string;
  translation?: TranslationReport;
}

/** Any tool-call event. */
export type ToolCallEvent = ToolCallStartedEvent | ToolCallCompletedEvent | ToolCallFailedEvent;

/** Receives tool-call events. Implementations must not throw and must not block the caller. */
export interface ToolCallEventSink {
  emit(event: ToolCallEvent): void;
  /**
   * False while nothing would keep or read an event (no history, no subscriber): the caller may then skip
   * building events at all. A sink without it always wants them.
   */
  wantsEvents?(): boolean;
  /**
   * Offers event number `step` of a call to be built only if it is ever read: `events.buildEvent(step)` is called
   * at most once, later or never, and must return what {@link emit} would have been given now. `estimatedBytes` is
   * about how much memory `events` holds on to for this event until then. Returns false when the sink wants the
   * event at once (someone reads events as they happen): the caller then builds it and calls {@link emit}. A sink
   * without it always wants events at once.
   */
  emitLater?(events: DeferredToolCallEvents, step: number, estimatedBytes: number): boolean;
}

/**
 * The events of one call, built on demand, for a sink that keeps them unbuilt until they are read
 * ({@link ToolCallEventSink.emitLater}). One object stands for every event of the call, so that a history of a
 * thousand calls keeps a thousand of them and no object per event: what a history keeps outlives the young
 * collections of a busy router and is copied by each of them.
 */
export interface DeferredToolCallEvents {
  /** The call's event number `step` (0 its STARTED event, 1 its terminal event), as `emit` would have been given it. */
  buildEvent(step: number): ToolCallEvent;
}
