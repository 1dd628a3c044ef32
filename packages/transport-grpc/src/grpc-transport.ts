import { create } from "@bufbuild/protobuf";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  cancellationOf,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_UNARY_TIMEOUT_MS,
  healthFromProbeError,
  type ServiceTarget,
  TrestleError,
  targetAddress,
} from "@trestle/core";
import {
  type CodeExecutionReply,
  CodeExecutor,
  HealthProbe,
  HealthProbeRequestSchema,
  Provisioner,
  ResourceAcquirer,
  ToolInvoker,
} from "@trestle/proto";
import { legacyCodeExecution, legacyProvision, legacyResource, legacyTool } from "@trestle/proto/legacy";
import {
  buildProvisionRequest,
  fromLegacyCodeReply,
  fromLegacyProvisionReply,
  fromLegacyResourceReply,
  fromLegacyToolReply,
  fromWanakuTransport,
  healthFromRuntimeStatus,
  provisioningReferenceFromReply,
  toLegacyCodeRequest,
  toLegacyProvisionRequest,
  toLegacyResourceRequest,
  toLegacyToolRequest,
  type WanakuTransport,
  wanakuDialectOf,
} from "@trestle/wanaku";
import { callMetadata, toGrpcMetadata } from "./call-metadata.js";
import { channelOptionsOf } from "./channel-options.js";
import { createChannelPool } from "./channel-pool.js";
import { channelSecurity } from "./channel-security.js";
import { type CallPlan, serverStreamCall, unaryCall } from "./grpc-calls.js";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
  type GrpcDialect,
  type GrpcTransportOptions,
} from "./grpc-transport-options.js";
import {
  connectHttp2,
  type Http2CallPlan,
  type Http2UnaryLimits,
  http2ServerStreamCall,
  http2UnaryCall,
} from "./http2-unary.js";
import { type GrpcJsModule, loadGrpcJs } from "./load-grpc-js.js";
import { type FramingMethodDefinition, grpcServiceDefinition } from "./service-definition.js";

const v1 = {
  invokeTool: grpcServiceDefinition(ToolInvoker).invokeTool,
  resourceAcquire: grpcServiceDefinition(ResourceAcquirer).resourceAcquire,
  provision: grpcServiceDefinition(Provisioner).provision,
  executeCode: grpcServiceDefinition(CodeExecutor).executeCode,
  getStatus: grpcServiceDefinition(HealthProbe).getStatus,
};

const legacy = {
  invokeTool: grpcServiceDefinition(legacyTool.ToolInvoker).invokeTool,
  resourceAcquire: grpcServiceDefinition(legacyResource.ResourceAcquirer).resourceAcquire,
  provision: grpcServiceDefinition(legacyProvision.Provisioner).provision,
  executeCode: grpcServiceDefinition(legacyCodeExecution.CodeExecutor).executeCode,
};

/**
 * Creates a {@link BridgeTransport} that reaches Wanaku capability services over gRPC: the neutral calls are
 * mapped to the contract's messages by `@trestle/wanaku` and sent as {@link createGrpcWanakuTransport} sends
 * them. Wanaku has no prompts: the transport has no `getPrompt`.
 *
 * @example
 * ```ts
 * const transport = createGrpcTransport({ tls: { ca: readFileSync("ca.pem") } });
 * const result = await transport.callTool({ tool, arguments: { city: "Oslo" } }, target, { requestId: "42", signal });
 * ```
 */
export function createGrpcTransport(options: GrpcTransportOptions = {}): BridgeTransport {
  return fromWanakuTransport(createGrpcWanakuTransport(options));
}

/**
 * Creates a {@link WanakuTransport} that sends Wanaku's messages over gRPC, as they are: for tests of a
 * service's raw wire, and under {@link createGrpcTransport}. The default client is a lean one on `node:http2`;
 * `client: "grpc-js"` uses @grpc/grpc-js, which is loaded only then (with its first call).
 *
 * - One channel (one HTTP/2 connection) per target address and TLS identity, shared by all calls and
 *   services there; closed by `release(target)`, by `close()`, and after `idleTimeoutMs` without a call.
 * - Deadlines: `CallOptions.timeoutMs`, else `options.timeouts(target)`, else 10 s unary / 20 s streaming.
 *   The caller's `signal` (or `cancellation`) cancels the call on the wire, a running `ExecuteCode` stream
 *   included; so does breaking out of the stream's iteration.
 * - Metadata: `x-wanaku-request-id` (from `CallOptions.requestId`, else the request's `request_id`) and
 *   every `CallOptions.metadata` entry.
 * - A gRPC status becomes a {@link TrestleError} with the same code and the status details as
 *   `rawMessage`. A dead port fails at once with `Unavailable` (calls do not wait for the channel to
 *   become ready).
 * - Dialect per target (`options.dialectFor`, else `target.dialect`, else `"v1"`; a dialect Wanaku does not
 *   have fails the call with `FailedPrecondition`). The legacy dialect (its mapping is `@trestle/wanaku`'s) speaks
 *   the seed-era packages `tool`, `resource` and `codeexecution` and maps at the edge: a legacy tool or
 *   resource reply with `isError` rejects with `Internal` and the reply's content as message. A legacy code
 *   execution stream yields every reply, error replies included, and then, if any reply had `isError`,
 *   fails with `Internal` carrying their content instead of ending normally: the engine's output is never
 *   lost, and the execution still counts as failed. Legacy services have no `HealthProbe`: the probe is
 *   sent anyway, and the `UNIMPLEMENTED` a live legacy service answers means healthy.
 *
 * @example
 * ```ts
 * const transport = createGrpcTransport({
 *   timeouts: (target) => (target.serviceName === "slow" ? { unaryMs: 60_000 } : undefined),
 *   tls: { ca: readFileSync("ca.pem") },
 * });
 * const reply = await transport.invokeTool(request, target, { requestId: "42", signal });
 * ```
 */
export function createGrpcWanakuTransport(options: GrpcTransportOptions = {}): WanakuTransport {
  const unaryTimeoutMs = options.unaryTimeoutMs ?? DEFAULT_UNARY_TIMEOUT_MS;
  const streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const pool = createChannelPool({ channelOptions: channelOptionsOf(options), idleTimeoutMs });
  const lean = (options.client ?? "http2") === "http2";
  const keepalive = {
    timeMs: options.keepalive?.timeMs ?? 30_000,
    timeoutMs: options.keepalive?.timeoutMs ?? 10_000,
  };
  const http2Pool = createChannelPool({
    connect: (address, security) => connectHttp2(address, security, keepalive),
    idleTimeoutMs,
  });
  const limits: Http2UnaryLimits = {
    maxReceiveMessageBytes: options.maxReceiveMessageBytes ?? DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
    maxSendMessageBytes: options.maxSendMessageBytes,
  };
  let closed = false;
  // Loaded by the first call on the grpc-js client: the default client never loads it.
  let grpcJs: GrpcJsModule | undefined;

  function dialectOf(target: ServiceTarget): GrpcDialect {
    return wanakuDialectOf(target, options.dialectFor?.(target));
  }

  function securityOf(target: ServiceTarget) {
    const perTarget = options.tlsFor?.(target);
    return channelSecurity(perTarget === undefined ? options.tls : perTarget);
  }

  /** Everything a call needs; throws (synchronously) when the transport is closed or the call is unusable. */
  function plan(
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
    kind: "unary" | "stream",
    requestId: string,
  ): CallPlan {
    if (closed) throw new TrestleError("The gRPC transport is closed", Code.Unavailable);
    const service = options.timeouts?.(target);
    const timeoutMs =
      callOptions?.timeoutMs ??
      (kind === "unary" ? service?.unaryMs : service?.streamMs) ??
      (kind === "unary" ? unaryTimeoutMs : streamTimeoutMs);
    grpcJs ??= loadGrpcJs();
    const metadata = toGrpcMetadata(grpcJs, callMetadata(callOptions, requestId));
    const lease = pool.lease(targetAddress(target), securityOf(target));
    return { lease, metadata, timeoutMs, cancellation: cancellationOf(callOptions) };
  }

  /** A call's plan on the lean client; throws (synchronously) like {@link plan}. */
  function leanPlan(
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
    kind: "unary" | "stream",
    requestId: string,
  ): Http2CallPlan {
    if (closed) throw new TrestleError("The gRPC transport is closed", Code.Unavailable);
    const service = options.timeouts?.(target);
    const timeoutMs =
      callOptions?.timeoutMs ??
      (kind === "unary" ? service?.unaryMs : service?.streamMs) ??
      (kind === "unary" ? unaryTimeoutMs : streamTimeoutMs);
    const metadata = callMetadata(callOptions, requestId);
    const lease = http2Pool.lease(targetAddress(target), securityOf(target));
    return { lease, metadata, timeoutMs, cancellation: cancellationOf(callOptions), limits };
  }

  function unary<I, O>(
    method: FramingMethodDefinition<I, O>,
    request: I,
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
    requestId = "",
  ): Promise<O> {
    try {
      if (lean) return http2UnaryCall(method, request, leanPlan(target, callOptions, "unary", requestId));
      return unaryCall(method, request, plan(target, callOptions, "unary", requestId));
    } catch (error) {
      return Promise.reject(TrestleError.from(error, Code.Internal));
    }
  }

  async function* legacyCodeStream(
    replies: AsyncIterable<legacyCodeExecution.CodeExecutionReply>,
  ): AsyncGenerator<CodeExecutionReply> {
    const errors: string[] = [];
    for await (const reply of replies) {
      if (reply.isError) errors.push(reply.content.join("\n"));
      yield fromLegacyCodeReply(reply);
    }
    if (errors.length > 0) {
      const text = errors.filter((e) => e !== "").join("\n");
      throw new TrestleError(text || "The engine reported an error", Code.Internal);
    }
  }

  return {
    protocol: "grpc",
    async provision(name, configData, secretsData, target, callOptions) {
      const request = buildProvisionRequest({ name, configurationData: configData, secretsData });
      const reply =
        dialectOf(target) === "legacy"
          ? fromLegacyProvisionReply(
              await unary(legacy.provision, toLegacyProvisionRequest(request), target, callOptions),
            )
          : await unary(v1.provision, request, target, callOptions);
      return provisioningReferenceFromReply(reply);
    },

    async invokeTool(request, target, callOptions) {
      if (dialectOf(target) === "legacy") {
        const reply = await unary(
          legacy.invokeTool,
          toLegacyToolRequest(request),
          target,
          callOptions,
          request.requestId,
        );
        return fromLegacyToolReply(reply);
      }
      return unary(v1.invokeTool, request, target, callOptions, request.requestId);
    },

    async acquireResource(request, target, callOptions) {
      if (dialectOf(target) === "legacy") {
        const reply = await unary(
          legacy.resourceAcquire,
          toLegacyResourceRequest(request),
          target,
          callOptions,
          request.requestId,
        );
        return fromLegacyResourceReply(reply);
      }
      return unary(v1.resourceAcquire, request, target, callOptions, request.requestId);
    },

    async *executeCode(request, target, callOptions) {
      // Planned on first read, not when executeCode is called: an iterable never read opens no call.
      if (lean) {
        let callPlan: Http2CallPlan;
        try {
          callPlan = leanPlan(target, callOptions, "stream", request.requestId);
        } catch (error) {
          throw TrestleError.from(error, Code.Internal);
        }
        if (dialectOf(target) === "legacy") {
          yield* legacyCodeStream(
            http2ServerStreamCall(legacy.executeCode, toLegacyCodeRequest(request), callPlan),
          );
        } else {
          yield* http2ServerStreamCall(v1.executeCode, request, callPlan);
        }
        return;
      }
      let callPlan: CallPlan;
      try {
        callPlan = plan(target, callOptions, "stream", request.requestId);
      } catch (error) {
        throw TrestleError.from(error, Code.Internal);
      }
      if (dialectOf(target) === "legacy") {
        yield* legacyCodeStream(serverStreamCall(legacy.executeCode, toLegacyCodeRequest(request), callPlan));
      } else {
        yield* serverStreamCall(v1.executeCode, request, callPlan);
      }
    },

    async probeHealth(target, callOptions) {
      try {
        const reply = await unary(
          v1.getStatus,
          create(HealthProbeRequestSchema, { id: target.id }),
          target,
          callOptions,
        );
        return healthFromRuntimeStatus(reply.status);
      } catch (error) {
        return healthFromProbeError(error);
      }
    },

    release(target) {
      pool.release(targetAddress(target), securityOf(target));
      http2Pool.release(targetAddress(target), securityOf(target));
    },

    async close() {
      if (closed) return;
      closed = true;
      const reason = new TrestleError("The gRPC transport was closed during the call", Code.Unavailable);
      pool.close(reason);
      http2Pool.close(reason);
    },
  };
}
