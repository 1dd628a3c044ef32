import {
  type CodeOutput,
  type ContentBlock,
  categorizeError,
  createContextKey,
  type ErrorCategory,
  type Interceptor,
  redactBody,
  type ServiceTarget,
  type ToolCallCompletedEvent,
  type ToolCallEvent,
  type ToolCallEventSink,
  type ToolCallFailedEvent,
  type ToolCallKind,
  type ToolCallStartedEvent,
  type ToolResult,
  type TranslationReport,
  type TransportRequest,
  type TransportResponse,
  TrestleError,
  targetAddress,
} from "@trestle/core";
import { describeFailure } from "../failure.js";
import type { SecretValues } from "../secret-values.js";
import { callSecretsKey } from "./scrub-secrets.js";

/** What a STARTED event records beyond the common fields; every value already redacted. */
export type StartedDetails = Pick<
  ToolCallStartedEvent,
  "arguments" | "headers" | "body" | "configurationURI" | "secretsURI" | "code" | "argumentCount"
>;

/**
 * What only the bridge knows about a call, put in the call's context values under {@link callRecordKey} so
 * that {@link callEvents} can record it. Every value is already redacted.
 */
export interface CallRecord {
  toolName: string;
  toolType: string;
  kind: ToolCallKind;
  namespace?: string | undefined;
  connectionId?: string | undefined;
  requestId?: string | undefined;
  /** The redacted request, recorded in STARTED. */
  started: StartedDetails;
  /** What the call asks for and of which part of the contract, for the failure message (see `describeFailure`). */
  what: string;
  operation: string;
  /** When the call began (the bridge's clock): durations count from here, resolution included. */
  startedAt?: number;
  /**
   * What translating the call between protocols or revisions kept and lost. The front that receives the call
   * sets the legs; interceptors and transports that translate add notes while the call runs; the terminal
   * event carries it.
   */
  translation?: TranslationReport;
}

/** The {@link CallRecord} of a call; calls without one (probes, provisioning, resource reads) are not recorded. */
export const callRecordKey = createContextKey<CallRecord | undefined>(undefined, {
  description: "trestle.callRecord",
});

/** Where call events go, and the clock and ids they carry. */
export interface CallEventsOptions {
  /** Receives STARTED, COMPLETED and FAILED events, redacted and scrubbed of the call's secret values. */
  sink: ToolCallEventSink;
  /** Milliseconds since the epoch; `Date.now` by default. */
  clock?: (() => number) | undefined;
  /** New event ids; `crypto.randomUUID` by default. */
  newId?: (() => string) | undefined;
}

/** The terminal outcome of a call. */
type CallEnd =
  | { ok: true; content: string[] }
  | { ok: false; content: string[]; errorCategory: ErrorCategory; errorMessage: string };

/** Runs `fn`, swallowing anything it throws: a misbehaving sink never fails a call. */
function guarded(fn: () => void): void {
  try {
    fn();
  } catch {
    // The sink contract forbids throwing; a call must not fail because an observer did.
  }
}

/** One call's events: STARTED once, then exactly one terminal event (later ends have no effect). */
interface Recording {
  end(outcome: CallEnd): void;
}

function startRecording(
  options: CallEventsOptions,
  record: CallRecord,
  secrets: SecretValues | undefined,
  target: ServiceTarget | undefined,
): Recording {
  const clock = options.clock ?? Date.now;
  const eventId = (options.newId ?? (() => crypto.randomUUID()))();
  const startedAt = record.startedAt ?? clock();
  // Every event passes through the call's scrubber: a value that escaped key-based redaction (a secret under an
  // innocent-looking header name) is never recorded.
  const emit = (event: ToolCallEvent) =>
    guarded(() => options.sink.emit(secrets ? secrets.scrubDeep(event) : event));
  const base = () => {
    const event: Pick<
      ToolCallStartedEvent,
      "eventId" | "timestamp" | "toolName" | "toolType" | "kind" | "namespace" | "requestId"
    > = {
      eventId,
      timestamp: clock(),
      toolName: record.toolName,
      toolType: record.toolType,
      kind: record.kind,
    };
    if (record.namespace !== undefined) event.namespace = record.namespace;
    if (record.requestId) event.requestId = record.requestId;
    return event;
  };
  const started: ToolCallStartedEvent = { ...base(), type: "started", ...record.started };
  if (record.connectionId) started.connectionId = record.connectionId;
  if (target) {
    started.serviceId = target.id;
    started.serviceAddress = targetAddress(target);
  }
  emit(started);
  let ended = false;
  return {
    end(outcome) {
      if (ended) return;
      ended = true;
      const duration = Math.max(0, clock() - startedAt);
      if (outcome.ok) {
        const event: ToolCallCompletedEvent = {
          ...base(),
          type: "completed",
          isError: false,
          content: outcome.content,
          duration,
        };
        if (record.translation) event.translation = record.translation;
        emit(event);
      } else {
        const event: ToolCallFailedEvent = {
          ...base(),
          type: "failed",
          isError: true,
          content: outcome.content,
          duration,
          errorCategory: outcome.errorCategory,
          errorMessage: outcome.errorMessage,
        };
        if (record.translation) event.translation = record.translation;
        emit(event);
      }
    },
  };
}

function failure(record: CallRecord, thrown: unknown, target: ServiceTarget | undefined): CallEnd {
  const error = TrestleError.from(thrown);
  const message = describeFailure(error, {
    ...(target ? { target } : {}),
    what: record.what,
    operation: record.operation,
  });
  return { ok: false, content: [message], errorCategory: categorizeError(error), errorMessage: message };
}

/**
 * Records a call that failed before it reached any transport (missing required arguments, no service): its
 * STARTED event and its FAILED event, as {@link callEvents} records a dispatched call.
 */
export function recordUndispatched(
  record: CallRecord,
  error: unknown,
  options: CallEventsOptions,
  secrets?: SecretValues,
): void {
  startRecording(options, record, secrets, undefined).end(failure(record, error, undefined));
}

/** A block as an event records it: text with secret-named JSON fields redacted, any other block as JSON. */
function eventText(block: ContentBlock): string {
  return block.type === "text" ? redactBody(block.text).text : JSON.stringify(block);
}

function toolEnd(result: ToolResult): CallEnd {
  // The client gets the result as it is; the event keeps no secret-named field of it (a login tool's
  // `{"access_token": …}`), as it keeps none of the request's body.
  const content = result.content.map(eventText);
  if (!result.isError) return { ok: true, content };
  return { ok: false, content, errorCategory: "execution_error", errorMessage: content.join("\n") };
}

/** How a run ended, as its last `exit` output said. */
type ExitStatus = Extract<CodeOutput, { type: "exit" }>["status"];

function isUnsuccessful(status: ExitStatus | undefined): boolean {
  return status === "failed" || status === "timeout" || status === "cancelled";
}

const CANCELLED_BY_CLIENT = "The code execution was cancelled by the client";
function cancelled(): CallEnd {
  return {
    ok: false,
    content: [CANCELLED_BY_CLIENT],
    errorCategory: "none",
    errorMessage: CANCELLED_BY_CLIENT,
  };
}

function exitEnd(status: ExitStatus | undefined, exitCode: number | undefined): CallEnd {
  if (!isUnsuccessful(status) && (exitCode === undefined || exitCode === 0)) return { ok: true, content: [] };
  const message = isUnsuccessful(status)
    ? `The code execution ended with status ${status?.toUpperCase()}${exitCode === undefined ? "" : ` (exit code ${exitCode})`}`
    : `The code exited with code ${exitCode}`;
  return { ok: false, content: [message], errorCategory: "execution_error", errorMessage: message };
}

/**
 * An interceptor that records each call carrying a {@link CallRecord} as a STARTED event (with the service it
 * went to) and exactly one terminal event. A tool call ends COMPLETED, or FAILED with `execution_error` when its
 * result is an error, or FAILED with the error's category (and a message naming the service) when it rejects. A
 * code execution stream ends COMPLETED when it ends with a successful status and exit code 0; FAILED with
 * `execution_error` on a failed, timed-out or cancelled status or a non-zero exit code; FAILED with the error's
 * category when it fails; FAILED with category `none` and "cancelled by the client" when the consumer stops
 * early or the call's signal aborts (at once, even while the consumer is not reading). Compose it outermost, so
 * that a call a limit refuses is recorded too, and outside the scrubbing, so that events see scrubbed data.
 *
 * @example
 * ```ts
 * const transports = interceptTransports(selector, [callEvents({ sink: hub }), scrubSecrets(), concurrencyLimit(limitsFor)]);
 * ```
 */
export function callEvents(options: CallEventsOptions): Interceptor {
  return (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      const context = request.options.contextValues;
      const record = context?.get(callRecordKey);
      // Nothing keeps or reads events (no history, no subscriber): build none.
      if (!record || options.sink.wantsEvents?.() === false) return next(request);
      const secrets = context?.get(callSecretsKey);
      const { target } = request;
      if (request.method === "executeCode") {
        const signal = request.options.signal;
        async function* observed(): AsyncGenerator<CodeOutput> {
          const recording = startRecording(options, record as CallRecord, secrets, target);
          // An abort while the consumer is not reading still ends the call now, not at its next read.
          const onAbort = () => recording.end(cancelled());
          signal?.addEventListener("abort", onAbort, { once: true });
          let end: CallEnd | undefined;
          let lastStatus: ExitStatus | undefined;
          let exitCode: number | undefined;
          try {
            for await (const output of next(request) as AsyncIterable<CodeOutput>) {
              if (output.type === "exit") {
                lastStatus = output.status;
                if (output.exitCode !== undefined) exitCode = output.exitCode;
              }
              yield output;
            }
            end = exitEnd(lastStatus, exitCode);
          } catch (thrown) {
            end = failure(record as CallRecord, thrown, target);
            throw thrown;
          } finally {
            signal?.removeEventListener("abort", onAbort);
            recording.end(end ?? cancelled());
          }
        }
        return observed() as unknown as TransportResponse<R>;
      }
      if (request.method !== "callTool") return next(request);
      const recording = startRecording(options, record, secrets, target);
      let response: Promise<ToolResult>;
      try {
        response = next(request) as Promise<ToolResult>;
      } catch (thrown) {
        recording.end(failure(record, thrown, target));
        throw thrown;
      }
      return response.then(
        (result) => {
          recording.end(toolEnd(result));
          return result;
        },
        (thrown: unknown) => {
          recording.end(failure(record, thrown, target));
          throw thrown;
        },
      ) as TransportResponse<R>;
    };
}
