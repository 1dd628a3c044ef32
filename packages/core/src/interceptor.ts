import type {
  BridgeTransport,
  CallOptions,
  CodeOutput,
  CodeRun,
  HealthStatus,
  PromptGet,
  PromptResult,
  Provisioning,
  ProvisioningReference,
  ResourceRead,
  ResourceResult,
  ToolCall,
  ToolResult,
} from "./call.js";
import { Code, TrestleError } from "./error.js";
import type { ServiceTarget } from "./service-target.js";

/** One transport call as an interceptor sees it: the method, its input, the target and the options. */
export type TransportRequest =
  | { method: "callTool"; input: ToolCall; target: ServiceTarget; options: CallOptions }
  | { method: "readResource"; input: ResourceRead; target: ServiceTarget; options: CallOptions }
  | { method: "getPrompt"; input: PromptGet; target: ServiceTarget; options: CallOptions }
  | { method: "executeCode"; input: CodeRun; target: ServiceTarget; options: CallOptions }
  | { method: "provision"; input: Provisioning; target: ServiceTarget; options: CallOptions }
  | { method: "probeHealth"; input: undefined; target: ServiceTarget; options: CallOptions };

/** What each method returns. */
export interface TransportResults {
  callTool: Promise<ToolResult>;
  readResource: Promise<ResourceResult>;
  getPrompt: Promise<PromptResult>;
  executeCode: AsyncIterable<CodeOutput>;
  provision: Promise<ProvisioningReference>;
  probeHealth: Promise<HealthStatus>;
}

/** The result of a {@link TransportRequest}: it follows the request's method. */
export type TransportResponse<R extends TransportRequest> = TransportResults[R["method"]];

/** Makes one transport call. */
export type Invoke = <R extends TransportRequest>(request: R) => TransportResponse<R>;

/**
 * Wraps the next invocation in a new one: limits, events, scrubbing, circuit feedback, tracing. Look at
 * `request.method` to handle one kind of call, and pass the others to `next` untouched.
 *
 * @example
 * ```ts
 * const stamp: Interceptor = (next) => (request) =>
 *   next({ ...request, options: { ...request.options, metadata: { ...request.options.metadata, "x-via": "trestle" } } });
 * ```
 */
export type Interceptor = (next: Invoke) => Invoke;

/**
 * The response of a call that fails with `error` without reaching the transport: a rejected promise, or for
 * `executeCode` a stream that throws when it is read. For interceptors that refuse a call (a limit, a policy).
 */
export function failedResponse<R extends TransportRequest>(request: R, error: unknown): TransportResponse<R> {
  if (request.method === "executeCode") {
    const stream: AsyncIterable<CodeOutput> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
    };
    return stream as unknown as TransportResponse<R>;
  }
  const rejected: Promise<never> = Promise.reject(error);
  return rejected as unknown as TransportResponse<R>;
}

/** The invocation that calls `transport` itself: the innermost layer. */
function invokeTransport(transport: BridgeTransport): Invoke {
  const invoke = (request: TransportRequest): unknown => {
    const { target, options } = request;
    switch (request.method) {
      case "callTool":
        return transport.callTool(request.input, target, options);
      case "readResource":
        return transport.readResource(request.input, target, options);
      case "getPrompt":
        return transport.getPrompt
          ? transport.getPrompt(request.input, target, options)
          : Promise.reject(new TrestleError("The transport has no method getPrompt", Code.Unimplemented));
      case "executeCode":
        return transport.executeCode(request.input, target, options);
      case "provision":
        return transport.provision(request.input, target, options);
      case "probeHealth":
        return transport.probeHealth(target, options);
    }
  };
  return invoke as Invoke;
}

/**
 * A transport that runs every call through `interceptors` before `transport`. The first interceptor in the
 * list is the outermost layer (it sees the call first and the result last), as in connect-es. `describeToolCall`,
 * `release` and `close` go straight to `transport`; `getPrompt` exists only when `transport` has it.
 */
export function withInterceptors(
  transport: BridgeTransport,
  interceptors: readonly Interceptor[],
): BridgeTransport {
  const invoke = interceptors.reduceRight<Invoke>(
    (next, interceptor) => interceptor(next),
    invokeTransport(transport),
  );
  const wrapped: BridgeTransport = {
    callTool: (input, target, options = {}) => invoke({ method: "callTool", input, target, options }),
    readResource: (input, target, options = {}) => invoke({ method: "readResource", input, target, options }),
    executeCode: (input, target, options = {}) => invoke({ method: "executeCode", input, target, options }),
    provision: (input, target, options = {}) => invoke({ method: "provision", input, target, options }),
    probeHealth: (target, options = {}) =>
      invoke({ method: "probeHealth", input: undefined, target, options }),
    close: () => transport.close(),
  };
  if (transport.getPrompt) {
    wrapped.getPrompt = (input, target, options = {}) =>
      invoke({ method: "getPrompt", input, target, options });
  }
  if (transport.describeToolCall) {
    // Not a call: it says how the transport would send one, so it goes straight to the transport.
    const describe = transport.describeToolCall.bind(transport);
    wrapped.describeToolCall = (call, target) => describe(call, target);
  }
  if (transport.release) {
    const release = transport.release.bind(transport);
    wrapped.release = (target) => release(target);
  }
  return wrapped;
}
