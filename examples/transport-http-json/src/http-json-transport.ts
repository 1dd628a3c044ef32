import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type CodeOutput,
  type CodeRun,
  createCallScope,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_UNARY_TIMEOUT_MS,
  type HealthStatus,
  healthFromProbeError,
  type JsonValue,
  type ServiceTarget,
  type TranslationLeg,
  TrestleError,
  targetAddress,
  translationRecorderKey,
} from "@trestle/core";
import { CALL_PATHS, fromWireError, REQUEST_ID_KEY, type ReplyLine, type RequestEnvelope } from "./wire.js";

/** The leg a tool call and a code execution speak, for the call's translation record: frozen, shared by every call. */
const LEGS = {
  callTool: Object.freeze({ protocol: "http-json", method: CALL_PATHS.callTool }),
  executeCode: Object.freeze({ protocol: "http-json", method: CALL_PATHS.executeCode }),
} satisfies Record<string, TranslationLeg>;

/** Options for {@link createHttpJsonTransport}. */
export interface HttpJsonTransportOptions {
  /** Deadline of unary calls when the caller gives none. Default 10 s. */
  unaryTimeoutMs?: number;
  /** Deadline of a whole code execution stream when the caller gives none. Default 20 s. */
  streamTimeoutMs?: number;
}

/** One call's signal: the caller's signal, its deadline and the transport closing, merged. */
interface Call {
  signal: AbortSignal;
  end(): void;
}

/**
 * A {@link BridgeTransport} that speaks HTTP+JSON (see `wire.ts`) to services made with
 * `createHttpJsonCapabilityServer`. The router's calls are JSON already, so they go on the wire as they are: a
 * `ToolCall` out, a `ToolResult` back, with every content block the service returns. Each call is one `POST`; a code execution answer is newline-delimited JSON
 * read as it arrives. Cancelling a call, its deadline passing, or a consumer leaving a stream early all abort
 * the HTTP request, and the service sees its connection close. Every failure is a `TrestleError`: the service's
 * own code, `Unavailable` when it cannot be reached or the connection breaks, `DeadlineExceeded`, `Canceled`.
 *
 * @example
 * ```ts
 * const router = await createRouter(config, { transports: { "http-json": createHttpJsonTransport() } });
 * ```
 */
export function createHttpJsonTransport(options: HttpJsonTransportOptions = {}): BridgeTransport {
  const unaryTimeoutMs = options.unaryTimeoutMs ?? DEFAULT_UNARY_TIMEOUT_MS;
  const streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  // Aborted by close(): every call in flight ends with Unavailable.
  const closing = new AbortController();

  function startCall(callOptions: CallOptions | undefined, defaultTimeoutMs: number): Call {
    if (closing.signal.aborted) throw closing.signal.reason;
    const scope = createCallScope(callOptions?.signal, callOptions?.timeoutMs ?? defaultTimeoutMs);
    return { signal: AbortSignal.any([scope.signal, closing.signal]), end: () => scope.dispose() };
  }

  /** Whatever went wrong, as the one error type: the abort's own reason when the call was aborted. */
  function failure(error: unknown, signal: AbortSignal, target: ServiceTarget): TrestleError {
    if (error instanceof TrestleError) return error;
    if (signal.aborted) return TrestleError.from(signal.reason, Code.Canceled);
    // fetch rejects with a TypeError whose cause is the socket's error (ECONNREFUSED, ECONNRESET, …).
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    return new TrestleError(`Cannot reach ${targetAddress(target)}: ${why}`, Code.Unavailable, {
      cause: error,
    });
  }

  function post(
    path: string,
    target: ServiceTarget,
    call: unknown,
    callOptions: CallOptions | undefined,
    signal: AbortSignal,
  ) {
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(callOptions?.metadata ?? {}))
      metadata[key.toLowerCase()] = value;
    if (callOptions?.requestId) metadata[REQUEST_ID_KEY] = callOptions.requestId;
    // The neutral calls are plain JSON: they go on the wire as they are.
    const envelope: RequestEnvelope = { request: call as JsonValue, metadata };
    return fetch(`http://${targetAddress(target)}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(envelope),
      signal,
    });
  }

  /** Reads one {@link ReplyLine}; a body that is not one (a proxy's error page) is judged by its status. */
  function parseLine(text: string, status: number, target: ServiceTarget): ReplyLine {
    try {
      return JSON.parse(text) as ReplyLine;
    } catch {
      const code = status === 502 || status === 503 || status === 504 ? Code.Unavailable : Code.Unknown;
      throw new TrestleError(
        `${targetAddress(target)} answered HTTP ${status} with something other than a reply`,
        code,
      );
    }
  }

  async function unary<Result>(
    path: string,
    input: unknown,
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
  ): Promise<Result> {
    const call = startCall(callOptions, unaryTimeoutMs);
    try {
      const response = await post(path, target, input, callOptions, call.signal);
      const answer = parseLine(await response.text(), response.status, target);
      if ("error" in answer) throw fromWireError(answer.error);
      if (!("reply" in answer))
        throw new TrestleError(`${targetAddress(target)} sent no reply`, Code.Unknown);
      return answer.reply as Result;
    } catch (error) {
      throw failure(error, call.signal, target);
    } finally {
      call.end();
    }
  }

  async function* executeCode(
    run: CodeRun,
    target: ServiceTarget,
    callOptions?: CallOptions,
  ): AsyncGenerator<CodeOutput> {
    callOptions?.contextValues?.get(translationRecorderKey)?.backend(LEGS.executeCode);
    const call = startCall(callOptions, streamTimeoutMs);
    // Leaving the loop early (break, return, a throw in the consumer) aborts the request: the engine stops.
    const leave = new AbortController();
    const signal = AbortSignal.any([call.signal, leave.signal]);
    try {
      const response = await post(CALL_PATHS.executeCode, target, run, callOptions, signal);
      if (!response.ok || !response.body) {
        const answer = parseLine(await response.text(), response.status, target);
        throw "error" in answer
          ? fromWireError(answer.error)
          : new TrestleError(`${targetAddress(target)} answered HTTP ${response.status}`, Code.Unknown);
      }
      let buffered = "";
      const decoder = new TextDecoder();
      for await (const chunk of response.body) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline = buffered.indexOf("\n");
        while (newline >= 0) {
          const answer = parseLine(buffered.slice(0, newline), response.status, target);
          buffered = buffered.slice(newline + 1);
          if ("error" in answer) throw fromWireError(answer.error);
          if ("end" in answer) return;
          yield answer.reply as CodeOutput;
          newline = buffered.indexOf("\n");
        }
      }
      throw new TrestleError(`The stream from ${targetAddress(target)} was cut off`, Code.Unavailable);
    } catch (error) {
      throw failure(error, signal, target);
    } finally {
      leave.abort(new TrestleError("The caller stopped reading the stream", Code.Canceled));
      call.end();
    }
  }

  return {
    callTool(call, target, callOptions) {
      // Every transport says which leg it spoke: the call's event records it beside the client's.
      callOptions?.contextValues?.get(translationRecorderKey)?.backend(LEGS.callTool);
      return unary(CALL_PATHS.callTool, call, target, callOptions);
    },
    readResource: (read, target, callOptions) => unary(CALL_PATHS.readResource, read, target, callOptions),
    getPrompt: (get, target, callOptions) => unary(CALL_PATHS.getPrompt, get, target, callOptions),
    provision: (provisioning, target, callOptions) =>
      unary(CALL_PATHS.provision, provisioning, target, callOptions),
    executeCode,
    async probeHealth(target, callOptions) {
      try {
        return await unary<HealthStatus>(CALL_PATHS.probeHealth, { id: target.id }, target, callOptions);
      } catch (error) {
        return healthFromProbeError(error);
      }
    },
    async close() {
      if (!closing.signal.aborted)
        closing.abort(new TrestleError("The transport is closed", Code.Unavailable));
    },
  };
}
