import type { BridgeTransport, CallOptions, CodeOutput } from "./call.js";
import { DEFAULT_STREAM_TIMEOUT_MS, DEFAULT_UNARY_TIMEOUT_MS } from "./call-options.js";
import { createCallScope, raceAbort } from "./call-scope.js";
import { Code, TrestleError } from "./error.js";
import { healthFromProbeError } from "./health.js";
import type { HandlerContext, ServiceHandlers } from "./service-handlers.js";
import { type ServiceTarget, type ServiceType, targetAddress } from "./service-target.js";

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
  serve(handlers: ServiceHandlers, options?: ServeOptions): ServedCapability;
  /** The handlers at an address, if any is served there. @internal */
  lookup(address: string): ServedEntry | undefined;
}

/** @internal */
export interface ServedEntry {
  handlers: ServiceHandlers;
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

/**
 * Copies a value as a wire would: a structured clone, so that neither side can change what the other holds.
 * `undefined` members survive a structured clone; a JSON wire would drop them, which no caller relies on.
 */
function overTheWire<T>(value: T): T {
  return structuredClone(value);
}

/** What a capability's thrown error looks like after crossing a wire: code and text only, nothing else. */
function asWireError(error: unknown): TrestleError {
  if (error instanceof TrestleError) return new TrestleError(error.rawMessage, error.code);
  if (error instanceof Error) return new TrestleError(error.message, Code.Internal);
  return new TrestleError(String(error), Code.Internal);
}

/**
 * A {@link BridgeTransport} that calls {@link ServiceHandlers} in this process: no sockets, with the wire's
 * semantics (values copied, deadlines, cancellation, errors reduced to code and message). For tests of
 * everything above the transport. To serve Wanaku `CapabilityHandlers` on it, wrap them with
 * `fromCapabilityHandlers` from `@trestle/wanaku`. It describes a tool call as the served handlers do
 * ({@link ServiceHandlers.describeToolCall}), and reports no leg of its own: it has no protocol.
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
    return { signal, requestId: callOptions?.requestId ?? "", metadata };
  }

  function unimplemented(method: string): TrestleError {
    return new TrestleError(`Method ${method} is not implemented by the service`, Code.Unimplemented);
  }

  async function unary<Out>(
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
    method: string,
    invoke: (handlers: ServiceHandlers, context: HandlerContext) => Promise<Out> | Out | undefined,
  ): Promise<Out> {
    const entry = connect(target);
    const scope = createCallScope(
      AbortSignal.any([entry.stopped, ...(callOptions?.signal ? [callOptions.signal] : [])]),
      callOptions?.timeoutMs ?? unaryTimeoutMs,
    );
    try {
      const call = Promise.resolve()
        .then(async () => {
          const result = await invoke(entry.handlers, contextFor(scope.signal, callOptions));
          if (result === undefined) throw unimplemented(method);
          return result;
        })
        .catch((error: unknown) => {
          throw asWireError(error);
        });
      return overTheWire(await raceAbort(call, scope.signal));
    } finally {
      scope.dispose();
    }
  }

  return {
    describeToolCall(call, target) {
      // A capability that is not served (yet) describes nothing: the call then fails when it is made.
      const entry = closed ? undefined : options.network.lookup(targetAddress(target));
      return entry?.handlers.describeToolCall?.(call);
    },
    callTool(call, target, callOptions) {
      const input = overTheWire(call);
      return unary(target, callOptions, "callTool", (h, c) => h.callTool?.(input, c));
    },
    readResource(read, target, callOptions) {
      const input = overTheWire(read);
      return unary(target, callOptions, "readResource", (h, c) => h.readResource?.(input, c));
    },
    getPrompt(get, target, callOptions) {
      const input = overTheWire(get);
      return unary(target, callOptions, "getPrompt", (h, c) => h.getPrompt?.(input, c));
    },
    provision(provisioning, target, callOptions) {
      const input = overTheWire(provisioning);
      return unary(target, callOptions, "provision", (h, c) => h.provision?.(input, c));
    },
    async *executeCode(run, target, callOptions): AsyncGenerator<CodeOutput> {
      const entry = connect(target);
      const scope = createCallScope(
        AbortSignal.any([entry.stopped, ...(callOptions?.signal ? [callOptions.signal] : [])]),
        callOptions?.timeoutMs ?? streamTimeoutMs,
      );
      // The handler sees its own signal, aborted when the consumer stops early, as a server sees a RST_STREAM.
      const handlerController = new AbortController();
      const handlerSignal = AbortSignal.any([scope.signal, handlerController.signal]);
      let iterator: AsyncIterator<CodeOutput> | undefined;
      try {
        const handler = entry.handlers.executeCode;
        if (!handler) throw unimplemented("executeCode");
        const stream = handler.call(entry.handlers, overTheWire(run), contextFor(handlerSignal, callOptions));
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
          yield overTheWire(next.value);
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
        return await unary(target, callOptions, "probeHealth", (h, c) =>
          h.probeHealth ? h.probeHealth(c) : Promise.reject(unimplemented("probeHealth")),
        );
      } catch (error) {
        return healthFromProbeError(error);
      }
    },
    async close() {
      closed = true;
    },
  };
}
