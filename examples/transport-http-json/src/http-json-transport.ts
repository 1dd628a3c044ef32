import { create, type DescMessage, fromJson, type MessageShape, toJson } from "@bufbuild/protobuf";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  createCallScope,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_UNARY_TIMEOUT_MS,
  healthFromProbeError,
  REQUEST_ID_METADATA_KEY,
  type ServiceTarget,
  TrestleError,
  targetAddress,
} from "@trestle/core";
import {
  type CodeExecutionReply,
  CodeExecutionReplySchema,
  type CodeExecutionRequest,
  CodeExecutionRequestSchema,
  HealthProbeReplySchema,
  HealthProbeRequestSchema,
  ProvisionReplySchema,
  ProvisionRequestSchema,
  ResourceReplySchema,
  ResourceRequestSchema,
  ToolInvokeReplySchema,
  ToolInvokeRequestSchema,
} from "@trestle/proto";
import {
  buildProvisionRequest,
  fromWanakuTransport,
  healthFromRuntimeStatus,
  provisioningReferenceFromReply,
  type WanakuTransport,
} from "@trestle/wanaku";
import { CALL_PATHS, fromWireError, type ReplyLine, type RequestEnvelope } from "./wire.js";

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
 * `createHttpJsonCapabilityServer`. Each call is one `POST`; a code execution answer is newline-delimited JSON
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
  return fromWanakuTransport(createHttpJsonWanakuTransport(options));
}

/**
 * The Wanaku messages over HTTP+JSON, as they are: {@link createHttpJsonTransport} maps the router's neutral
 * calls to them with `@trestle/wanaku`.
 */
function createHttpJsonWanakuTransport(options: HttpJsonTransportOptions): WanakuTransport {
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
    request: RequestEnvelope["request"],
    callOptions: CallOptions | undefined,
    signal: AbortSignal,
  ) {
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(callOptions?.metadata ?? {}))
      metadata[key.toLowerCase()] = value;
    if (callOptions?.requestId) metadata[REQUEST_ID_METADATA_KEY] = callOptions.requestId;
    const envelope: RequestEnvelope = { request, metadata };
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

  async function unary<Req extends DescMessage, Res extends DescMessage>(
    path: string,
    requestSchema: Req,
    replySchema: Res,
    request: MessageShape<Req>,
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
  ): Promise<MessageShape<Res>> {
    const call = startCall(callOptions, unaryTimeoutMs);
    try {
      const response = await post(path, target, toJson(requestSchema, request), callOptions, call.signal);
      const answer = parseLine(await response.text(), response.status, target);
      if ("error" in answer) throw fromWireError(answer.error);
      if (!("reply" in answer))
        throw new TrestleError(`${targetAddress(target)} sent no reply`, Code.Unknown);
      return fromJson(replySchema, answer.reply);
    } catch (error) {
      throw failure(error, call.signal, target);
    } finally {
      call.end();
    }
  }

  async function* executeCode(
    request: CodeExecutionRequest,
    target: ServiceTarget,
    callOptions?: CallOptions,
  ): AsyncGenerator<CodeExecutionReply> {
    const call = startCall(callOptions, streamTimeoutMs);
    // Leaving the loop early (break, return, a throw in the consumer) aborts the request: the engine stops.
    const leave = new AbortController();
    const signal = AbortSignal.any([call.signal, leave.signal]);
    try {
      const response = await post(
        CALL_PATHS.executeCode,
        target,
        toJson(CodeExecutionRequestSchema, request),
        callOptions,
        signal,
      );
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
          yield fromJson(CodeExecutionReplySchema, answer.reply);
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
    async provision(name, configData, secretsData, target, callOptions) {
      const reply = await unary(
        CALL_PATHS.provision,
        ProvisionRequestSchema,
        ProvisionReplySchema,
        buildProvisionRequest({ name, configurationData: configData, secretsData }),
        target,
        callOptions,
      );
      return provisioningReferenceFromReply(reply);
    },
    invokeTool(request, target, callOptions) {
      return unary(
        CALL_PATHS.invokeTool,
        ToolInvokeRequestSchema,
        ToolInvokeReplySchema,
        request,
        target,
        callOptions,
      );
    },
    acquireResource(request, target, callOptions) {
      return unary(
        CALL_PATHS.acquireResource,
        ResourceRequestSchema,
        ResourceReplySchema,
        request,
        target,
        callOptions,
      );
    },
    executeCode,
    async probeHealth(target, callOptions) {
      try {
        const reply = await unary(
          CALL_PATHS.probeHealth,
          HealthProbeRequestSchema,
          HealthProbeReplySchema,
          create(HealthProbeRequestSchema, { id: target.id }),
          target,
          callOptions,
        );
        return healthFromRuntimeStatus(reply.status);
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
