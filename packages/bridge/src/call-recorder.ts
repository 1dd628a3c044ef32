import {
  type ErrorCategory,
  type ServiceTarget,
  type ToolCallEvent,
  type ToolCallKind,
  type ToolCallStartedEvent,
  targetAddress,
} from "@trestle/core";
import type { BridgeDependencies, CallContext } from "./call-context.js";
import type { SecretValues } from "./secret-values.js";

/** What a STARTED event records beyond the common fields; every value already redacted. */
export type StartedDetails = Pick<
  ToolCallStartedEvent,
  "arguments" | "headers" | "body" | "configurationURI" | "secretsURI" | "code" | "argumentCount"
>;

/** The terminal outcome of a call. */
export type CallEnd =
  | { ok: true; content: string[] }
  | { ok: false; content: string[]; errorCategory: ErrorCategory; errorMessage: string };

/**
 * Records one routed call: its STARTED event and its one terminal event (the resolver hears of the call's
 * outcome from the `outcomeFeedback` interceptor, around the transport). Every event passes through the call's secret scrubber before it leaves, so that even a value that
 * escaped key-based redaction (a secret under an innocent-looking header name) is never recorded.
 */
export interface CallRecording {
  /** Emits STARTED. Call it once. */
  started(details: StartedDetails): void;
  /** Sets the service recorded in STARTED. Call it before {@link started}. */
  setTarget(target: ServiceTarget): void;
  /**
   * Emits the terminal event. Only the first
   * call has an effect: returns false for any later one.
   */
  end(outcome: CallEnd): boolean;
  /** True once {@link end} ran. */
  readonly ended: boolean;
}

/** What identifies the call in its events. */
export interface CallIdentity {
  toolName: string;
  toolType: string;
  kind: ToolCallKind;
  namespace?: string | undefined;
  context?: CallContext | undefined;
  secrets: SecretValues;
}

interface CommonFields {
  eventId: string;
  timestamp: number;
  toolName: string;
  toolType: string;
  kind: ToolCallKind;
  namespace?: string;
  requestId?: string;
}

/** Runs `fn`, swallowing anything it throws: a misbehaving sink or listener never fails a call. */
export function guarded(fn: () => void): void {
  try {
    fn();
  } catch {
    // The sink contract forbids throwing; a call must not fail because an observer did.
  }
}

/** Creates a recorder factory bound to the bridge's dependencies. */
export function createCallRecorder(deps: BridgeDependencies): (identity: CallIdentity) => CallRecording {
  const clock = deps.clock ?? Date.now;
  const newId = deps.newId ?? (() => crypto.randomUUID());

  return (identity) => {
    const eventId = newId();
    const startedAt = clock();
    let target: ServiceTarget | undefined;
    let ended = false;

    const base = () => {
      const event: CommonFields = {
        eventId,
        timestamp: clock(),
        toolName: identity.toolName,
        toolType: identity.toolType,
        kind: identity.kind,
      };
      const namespace = identity.context?.namespace ?? identity.namespace;
      if (namespace !== undefined) event.namespace = namespace;
      if (identity.context?.requestId) event.requestId = identity.context.requestId;
      return event;
    };
    const emit = (event: ToolCallEvent) => guarded(() => deps.events.emit(identity.secrets.scrubDeep(event)));

    return {
      setTarget(value) {
        target = value;
      },
      started(details) {
        const event: ToolCallStartedEvent = { ...base(), type: "started", ...details };
        if (identity.context?.connectionId) event.connectionId = identity.context.connectionId;
        if (target) {
          event.serviceId = target.id;
          event.serviceAddress = targetAddress(target);
        }
        emit(event);
      },
      end(outcome) {
        if (ended) return false;
        ended = true;
        const duration = Math.max(0, clock() - startedAt);
        if (outcome.ok) {
          emit({ ...base(), type: "completed", isError: false, content: outcome.content, duration });
        } else {
          emit({
            ...base(),
            type: "failed",
            isError: true,
            content: outcome.content,
            duration,
            errorCategory: outcome.errorCategory,
            errorMessage: outcome.errorMessage,
          });
        }
        return true;
      },
      get ended() {
        return ended;
      },
    };
  };
}
