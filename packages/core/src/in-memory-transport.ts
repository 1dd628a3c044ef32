import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import {
  type CodeExecutionReply,
  CodeExecutionReplySchema,
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
  type CallOptions,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_UNARY_TIMEOUT_MS,
  REQUEST_ID_METADATA_KEY,
} from "./call-options.js";
import { createCallScope, raceAbort } from "./call-scope.js";
import type { CapabilityHandlers, HandlerContext } from "./capability-handlers.js";
import { Code, TrestleError } from "./error.js";
import { healthFromProbeError, healthFromRuntimeStatus } from "./health.js";
import { buildProvisionRequest, provisioningReferenceFromReply } from "./provisioning.js";
import { type ServiceTarget, type ServiceType, targetAddress } from "./service-target.js";
import type { BridgeTransport } from "./transport.js";

/** A capability served on an {@link InMemoryNetwork} (or by any real server in tests). */
export interface ServedCapability {
  /** A target that reaches it. */
  target: ServiceTarget;
  /** Stops serving; calls in flight are cancelled. */
  close(): Promise<void>;
}

/** Describes the target that {@link InMemoryNetwork.serve} returns. */
export interface ServeOptions {
  serviceName?: string;
  serviceType?: ServiceType;
}

/** A set of in-process capability services, addressed by fake host and port. */
export interface InMemoryNetwork {
  /** Serves `handlers` at a new address. */
  serve(handlers: CapabilityHandlers, options?: ServeOptions): ServedCapability;
  /** The handlers at an address, if any is served there. @internal */
  lookup(address: string): ServedEntry | undefined;
}

/** @internal */
export interface ServedEntry {
  handlers: CapabilityHandlers;
  /** Aborted when the capability stops serving. */
  stopped: AbortSignal;
}

/** Creates an empty {@link InMemoryNetwork}. */
export function createInMemoryNetwork(): InMemoryNetwork {
  const entries = new Map<string, ServedEntry>();
  let nextPort = 1;
  return {
    serve(handlers, options = {}) {
      const port = nextPort++;
      const target: ServiceTarget = {
        id: `in-memory-${port}`,
        serviceName: options.serviceName ?? "in-memory",
        host: "in-memory",
        port,
        serviceType: options.serviceType ?? "multi-capability",
      };
      const stopped = new AbortController();
      const address = targetAddress(target);
      entries.set(address, { handlers, stopped: stopped.signal });
      return {
        target,
        async close() {
          entries.delete(address);
          stopped.abort(new TrestleError("The capability stopped serving", Code.Unavailable));
        },
      };
    },
    lookup(address) {
      return entries.get(address);
    },
  };
}

/** Options for {@link createInMemoryTransport}. */
export interface InMemoryTransportOptions {
  /** Where the capabilities live. */
  network: InMemoryNetwork;
  /** Default deadline of unary calls. */
  unaryTimeoutMs?: number;
  /** Default deadline of code execution streams. */
  streamTimeoutMs?: number;
}

/** Copies a message through its binary form, so the in-memory path has the wire's semantics. */
function overTheWire<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): MessageShape<Desc> {
  return fromBinary(schema, toBinary(schema, message));
}

/** What a capability's thrown error looks like after crossing a wire: code and text only, nothing else. */
function asWireError(error: unknown): TrestleError {
  if (error instanceof TrestleError) return new TrestleError(error.rawMessage, error.code);
  if (error instanceof Error) return new TrestleError(error.message, Code.Internal);
  return new TrestleError(String(error), Code.Internal);
}

/**
 * A {@link BridgeTransport} that calls {@link CapabilityHandlers} in this process: no sockets, with the
 * wire's semantics (messages copied through their binary form, deadlines, cancellation, errors reduced to
 * code and message). For tests of everything above the transport.
 */
export function createInMemoryTransport(options: InMemoryTransportOptions): BridgeTransport {
  const unaryTimeoutMs = options.unaryTimeoutMs ?? DEFAULT_UNARY_TIMEOUT_MS;
  const streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  let closed = false;

  function connect(target: ServiceTarget): ServedEntry {
    if (closed) throw new TrestleError("The transport is closed", Code.Unavailable);
    const entry = options.network.lookup(targetAddress(target));
    if (!entry) throw new TrestleError(`Connection refused by ${targetAddress(target)}`, Code.Unavailable);
    return entry;
  }

  function contextFor(signal: AbortSignal, callOptions: CallOptions | undefined): HandlerContext {
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(callOptions?.metadata ?? {})) metadata[k.toLowerCase()] = v;
    if (callOptions?.requestId) metadata[REQUEST_ID_METADATA_KEY] = callOptions.requestId;
    return { signal, requestId: callOptions?.requestId ?? "", metadata };
  }

  async function unary<Req extends DescMessage, Res extends DescMessage>(
    requestSchema: Req,
    replySchema: Res,
    request: MessageShape<Req>,
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
    pick: (h: CapabilityHandlers) => ((r: MessageShape<Req>, c: HandlerContext) => unknown) | undefined,
    method: string,
  ): Promise<MessageShape<Res>> {
    const entry = connect(target);
    const scope = createCallScope(
      AbortSignal.any([entry.stopped, ...(callOptions?.signal ? [callOptions.signal] : [])]),
      callOptions?.timeoutMs ?? unaryTimeoutMs,
    );
    try {
      const handler = pick(entry.handlers);
      if (!handler)
        throw new TrestleError(`Method ${method} is not implemented by the service`, Code.Unimplemented);
      const call = Promise.resolve()
        .then(() =>
          handler.call(
            entry.handlers,
            overTheWire(requestSchema, request),
            contextFor(scope.signal, callOptions),
          ),
        )
        .catch((error: unknown) => {
          throw asWireError(error);
        });
      const init = await raceAbort(call, scope.signal);
      return overTheWire(replySchema, create(replySchema, init as never));
    } finally {
      scope.dispose();
    }
  }

  return {
    async provision(name, configData, secretsData, target, callOptions) {
      const reply = await unary(
        ProvisionRequestSchema,
        ProvisionReplySchema,
        buildProvisionRequest(name, configData, secretsData),
        target,
        callOptions,
        (h) => h.provisioner,
        "Provisioner.Provision",
      );
      return provisioningReferenceFromReply(reply);
    },
    invokeTool(request, target, callOptions) {
      return unary(
        ToolInvokeRequestSchema,
        ToolInvokeReplySchema,
        request,
        target,
        callOptions,
        (h) => h.toolInvoker,
        "ToolInvoker.InvokeTool",
      );
    },
    acquireResource(request, target, callOptions) {
      return unary(
        ResourceRequestSchema,
        ResourceReplySchema,
        request,
        target,
        callOptions,
        (h) => h.resourceAcquirer,
        "ResourceAcquirer.ResourceAcquire",
      );
    },
    async *executeCode(request, target, callOptions): AsyncGenerator<CodeExecutionReply> {
      const entry = connect(target);
      const scope = createCallScope(
        AbortSignal.any([entry.stopped, ...(callOptions?.signal ? [callOptions.signal] : [])]),
        callOptions?.timeoutMs ?? streamTimeoutMs,
      );
      // The handler sees its own signal, aborted when the consumer stops early, as a server sees a RST_STREAM.
      const handlerController = new AbortController();
      const handlerSignal = AbortSignal.any([scope.signal, handlerController.signal]);
      let iterator: AsyncIterator<unknown> | undefined;
      try {
        const handler = entry.handlers.codeExecutor;
        if (!handler)
          throw new TrestleError(
            "Method CodeExecutor.ExecuteCode is not implemented by the service",
            Code.Unimplemented,
          );
        const stream = handler.call(
          entry.handlers,
          overTheWire(CodeExecutionRequestSchema, request),
          contextFor(handlerSignal, callOptions),
        );
        iterator = stream[Symbol.asyncIterator]();
        const it = iterator;
        while (true) {
          const next = await raceAbort(
            it.next().catch((error: unknown) => {
              throw asWireError(error);
            }),
            scope.signal,
          );
          if (next.done) return;
          yield overTheWire(CodeExecutionReplySchema, create(CodeExecutionReplySchema, next.value as never));
        }
      } finally {
        scope.dispose();
        handlerController.abort(new TrestleError("The caller stopped reading the stream", Code.Canceled));
        // Let the handler's own finally blocks run, as a server does when its stream is cancelled.
        void iterator?.return?.().catch(() => undefined);
      }
    },
    async probeHealth(target, callOptions) {
      try {
        const reply = await unary(
          HealthProbeRequestSchema,
          HealthProbeReplySchema,
          create(HealthProbeRequestSchema, { id: target.id }),
          target,
          callOptions,
          (h) => h.healthProbe,
          "HealthProbe.GetStatus",
        );
        return healthFromRuntimeStatus(reply.status);
      } catch (error) {
        return healthFromProbeError(error);
      }
    },
    async close() {
      closed = true;
    },
  };
}
