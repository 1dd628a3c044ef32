import {
  type CodeOutput,
  type ContentBlock,
  createContextKey,
  type Interceptor,
  type ServiceTarget,
  type ToolResult,
  type TransportRequest,
  type TransportResponse,
  TrestleError,
  targetAddress,
} from "@trestle/core";
import {
  categorizeError,
  type DeferredToolCallEvents,
  type ErrorCategory,
  type ToolCallCompletedEvent,
  type ToolCallEvent,
  type ToolCallEventSink,
  type ToolCallFailedEvent,
  type ToolCallKind,
  type ToolCallStartedEvent,
  type TranslationReport,
} from "@trestle/core/events";
import { redactBody } from "@trestle/core/redaction";
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
  /** The principal whose call it is, recorded in every event of the call. */
  principal?: string | undefined;
  /** The code-mode run the call belongs to, recorded in every event of the call. */
  codeRun?: string | undefined;
  /** The redacted request, recorded in STARTED. */
  started: StartedDetails;
  /** What the call asks for and of which part of the contract, for the failure message (see `describeFailure`). */
  what: string;
  operation: string;
  /** When the call began (the bridge's clock): durations count from here, resolution included. */
  startedAt?: number;
  /**
   * About how many bytes {@link started} stands for (its strings' lengths), when the bridge knows it cheaply: the
   * events of such a call may then be built only if read (see `ToolCallEventSink.emitLater`). Without it they are
   * built at once.
   */
  estimatedBytes?: number;
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

/** What an event costs beyond its payload, for estimates: ids, names, timestamps, the target. */
const EVENT_OVERHEAD_BYTES = 400;

/** The step of a call's STARTED event, and of its terminal event (see {@link DeferredToolCallEvents}). */
const STARTED_STEP = 0;
const ENDED_STEP = 1;

/**
 * One call's events: STARTED once, then exactly one terminal event (later ends have no effect). A history may keep
 * both unbuilt until it is read, about a thousand calls: what it keeps of a call is this one object (which builds
 * either event) and its record, rather than a closure per step or an object per event (measured: 43 objects and
 * 2.3 KB a call at first, which outlived young collections and made them copy and promote every recorded call).
 */
class CallRecording implements DeferredToolCallEvents {
  readonly #options: CallEventsOptions;
  readonly #record: CallRecord;
  readonly #secrets: SecretValues | undefined;
  readonly #target: ServiceTarget | undefined;
  /** Both events of a call share one id, drawn when the first of them is built. */
  #eventId: string | undefined;
  readonly #startedTimestamp: number;
  #ended = false;
  #endedAt = 0;
  /** How the call ended: an outcome, or a result's texts still to be redacted (when the event is built). */
  #outcome: CallEnd | undefined;
  #texts: string[] | undefined;
  #isError = false;
  /**
   * The record's translation report as it stood when the call ended: an event built later (when the history is
   * read) must not show a report a transport began after the call was over. Read at the end, not at the start,
   * because a transport reports its backend leg during the call.
   */
  #translation: TranslationReport | undefined;

  constructor(
    options: CallEventsOptions,
    record: CallRecord,
    secrets: SecretValues | undefined,
    target: ServiceTarget | undefined,
  ) {
    this.#options = options;
    this.#record = record;
    this.#secrets = secrets;
    this.#target = target;
    const now = this.#now();
    this.#startedTimestamp = now;
    this.#publish(STARTED_STEP, record.estimatedBytes);
  }

  buildEvent(step: number): ToolCallEvent {
    return this.#scrubbed(step === STARTED_STEP ? this.#startedEvent() : this.#endedEvent());
  }

  /** Records the call's end with `outcome`; `estimatedBytes` is about how much it holds until built. */
  end(outcome: CallEnd, estimatedBytes = endBytes(outcome)): void {
    if (this.#ended) return;
    this.#outcome = outcome;
    this.#endWith(estimatedBytes);
  }

  /** Records the call's end with a result's texts, redacted only when the event is built. */
  endWithTexts(texts: string[], isError: boolean, estimatedBytes: number): void {
    if (this.#ended) return;
    this.#texts = texts;
    this.#isError = isError;
    this.#endWith(estimatedBytes);
  }

  #endWith(estimatedBytes: number): void {
    this.#ended = true;
    this.#endedAt = this.#now();
    this.#translation = this.#record.translation;
    this.#publish(ENDED_STEP, this.#record.estimatedBytes === undefined ? undefined : estimatedBytes);
  }

  #now(): number {
    return (this.#options.clock ?? Date.now)();
  }

  /** Every event passes through the call's scrubber: a value that escaped key-based redaction is never recorded. */
  #scrubbed(event: ToolCallEvent): ToolCallEvent {
    return this.#secrets ? this.#secrets.scrubDeep(event) : event;
  }

  /**
   * Hands the event of `step` to the sink: unbuilt (this recording builds it if it is read) when the sink only
   * keeps events and the call says what it holds; built now otherwise. A misbehaving sink never fails a call.
   */
  #publish(step: number, estimatedBytes: number | undefined): void {
    const sink = this.#options.sink;
    try {
      const later =
        estimatedBytes !== undefined &&
        sink.emitLater?.(this, step, estimatedBytes + EVENT_OVERHEAD_BYTES) === true;
      if (!later) sink.emit(this.buildEvent(step));
    } catch {
      // The sink contract forbids throwing; a call must not fail because an observer did.
    }
  }

  /**
   * A new event of `type` with the fields every event of the call has; the caller adds the rest. Events are built
   * by adding properties one at a time, never by spreading: on Node 20 an object literal that spreads an object
   * and adds keys it lacks, or spreads two, takes V8's slow path (about 1 µs a key added; 17 µs of self time a
   * STARTED event in a profile).
   */
  #base<E extends ToolCallEvent>(timestamp: number, type: E["type"]): E {
    const record = this.#record;
    this.#eventId ??= this.#options.newId?.() ?? crypto.randomUUID();
    const event: Pick<ToolCallEvent, "eventId" | "timestamp" | "toolName" | "toolType" | "kind"> &
      Partial<Pick<ToolCallEvent, "namespace" | "requestId" | "principal" | "codeRun" | "type">> = {
      eventId: this.#eventId,
      timestamp,
      toolName: record.toolName,
      toolType: record.toolType,
      kind: record.kind,
    };
    if (record.namespace !== undefined) event.namespace = record.namespace;
    if (record.requestId) event.requestId = record.requestId;
    if (record.principal !== undefined) event.principal = record.principal;
    if (record.codeRun !== undefined) event.codeRun = record.codeRun;
    // After the optional fields, where the events' JSON has always had it.
    event.type = type;
    // Completed by the caller: the fields of its type.
    return event as E;
  }

  #startedEvent(): ToolCallStartedEvent {
    const record = this.#record;
    const details = record.started;
    const started = this.#base<ToolCallStartedEvent>(this.#startedTimestamp, "started");
    started.arguments = details.arguments;
    started.headers = details.headers;
    if (details.body !== undefined) started.body = details.body;
    if (details.configurationURI !== undefined) started.configurationURI = details.configurationURI;
    if (details.secretsURI !== undefined) started.secretsURI = details.secretsURI;
    if (details.code !== undefined) started.code = details.code;
    if (details.argumentCount !== undefined) started.argumentCount = details.argumentCount;
    if (record.connectionId) started.connectionId = record.connectionId;
    const target = this.#target;
    if (target) {
      started.serviceId = target.id;
      started.serviceAddress = targetAddress(target);
    }
    return started;
  }

  #endedEvent(): ToolCallCompletedEvent | ToolCallFailedEvent {
    const outcome =
      this.#outcome ??
      contentEnd(
        (this.#texts ?? []).map((text) => redactBody(text).text),
        this.#isError,
      );
    // From the record's start when it has one (resolution included), else from this recording's.
    const duration = Math.max(0, this.#endedAt - (this.#record.startedAt ?? this.#startedTimestamp));
    let event: ToolCallCompletedEvent | ToolCallFailedEvent;
    if (outcome.ok) {
      event = this.#base<ToolCallCompletedEvent>(this.#endedAt, "completed");
      event.isError = false;
      event.content = outcome.content;
      event.duration = duration;
    } else {
      event = this.#base<ToolCallFailedEvent>(this.#endedAt, "failed");
      event.isError = true;
      event.content = outcome.content;
      event.duration = duration;
      event.errorCategory = outcome.errorCategory;
      event.errorMessage = outcome.errorMessage;
    }
    if (this.#translation) event.translation = this.#translation;
    return event;
  }
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
  new CallRecording(options, record, secrets, undefined).end(failure(record, error, undefined));
}

/** A block as an event records it: text with secret-named JSON fields redacted, any other block as JSON. */
function eventText(block: ContentBlock): string {
  return block.type === "text" ? redactBody(block.text).text : JSON.stringify(block);
}

function contentEnd(content: string[], isError: boolean): CallEnd {
  if (!isError) return { ok: true, content };
  return { ok: false, content, errorCategory: "execution_error", errorMessage: content.join("\n") };
}

/**
 * Ends `recording` with a tool result. The client gets the result as it is; the event keeps no secret-named field
 * of it (a login tool's `{"access_token": …}`), as it keeps none of the request's body. A result of text blocks
 * only is recorded from its texts alone (nothing else of the result is held until the event is built).
 */
function endWithResult(recording: CallRecording, result: ToolResult): void {
  const isError = result.isError === true;
  const content = result.content;
  // Exactly as long as the content (an array grown by `push` reserves 17 slots): a history keeps it.
  const texts = new Array<string>(content.length);
  let bytes = 0;
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as ContentBlock;
    if (block.type !== "text") {
      recording.end(contentEnd(content.map(eventText), isError));
      return;
    }
    texts[i] = block.text;
    bytes += block.text.length;
  }
  recording.endWithTexts(texts, isError, bytes);
}

/** About how many bytes an outcome's event holds: its texts' lengths. */
function endBytes(end: CallEnd): number {
  let bytes = end.ok ? 0 : end.errorMessage.length;
  for (const text of end.content) bytes += text.length;
  return bytes;
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
          const recording = new CallRecording(options, record as CallRecord, secrets, target);
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
      const recording = new CallRecording(options, record, secrets, target);
      let response: Promise<ToolResult>;
      try {
        response = next(request) as Promise<ToolResult>;
      } catch (thrown) {
        recording.end(failure(record, thrown, target));
        throw thrown;
      }
      return response.then(
        (result) => {
          endWithResult(recording, result);
          return result;
        },
        (thrown: unknown) => {
          recording.end(failure(record, thrown, target));
          throw thrown;
        },
      ) as TransportResponse<R>;
    };
}
