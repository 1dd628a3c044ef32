import { once } from "node:events";
import { create, type DescMessage, type DescMethod, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type * as grpc from "@grpc/grpc-js";
import type { HandlerContext } from "@trestle/core";
import { CodeExecutor, HealthProbe, Provisioner, ResourceAcquirer, ToolInvoker } from "@trestle/proto";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { CallCancellation } from "./call-cancellation.js";
import type { CallSecretCheck } from "./call-secret.js";
import type { InFlightCalls } from "./capability-routes.js";
import { handlerContextFromGrpc } from "./handler-context.js";
import { toGrpcStatus } from "./handler-error.js";
import { untilAborted } from "./until-aborted.js";

type UnaryHandler = (request: never, context: HandlerContext) => unknown;
type StreamHandler = (request: never, context: HandlerContext) => AsyncIterable<unknown>;

// Why a call's signal aborted. One object each, shared by every call: a call that ends costs no new Error.
const CALL_ENDED = new ConnectError("The call has ended", Code.Canceled);
const CALL_CANCELLED = new ConnectError(
  "The caller cancelled the call or its connection closed",
  Code.Canceled,
);
const DEADLINE_PASSED = new ConnectError("The call's deadline passed", Code.DeadlineExceeded);

function endReason(call: { getDeadline(): grpc.Deadline }, answered: boolean): ConnectError {
  if (answered) return CALL_ENDED;
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Date.now() >= ms ? DEADLINE_PASSED : CALL_CANCELLED;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === "function";
}

/** Reads a request with its generated schema; grpc-js answers a message it cannot read with `INTERNAL`. */
function deserializerOf(schema: DescMessage): grpc.deserialize<unknown> {
  return (bytes) => fromBinary(schema, bytes);
}

/** Writes a handler's reply (a plain init object or a message) with its generated schema, without a copy. */
function serializerOf(schema: DescMessage): grpc.serialize<unknown> {
  return (init) => {
    const bytes = toBinary(schema, create(schema, init as never));
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/**
 * A unary grpc-js handler around a Trestle one. The call's signal aborts when grpc-js reports the call over
 * (answered, cancelled by the caller, its deadline passed, its connection dropped); a closing server that cancels
 * it answers `UNAVAILABLE` at once, even while the handler goes on.
 */
function serveUnary(
  handler: UnaryHandler,
  inFlight: InFlightCalls,
  secretCheck: CallSecretCheck | undefined,
): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    if (secretCheck && !secretCheck.acceptsGrpc(call.metadata)) {
      callback(toGrpcStatus(secretCheck.refusal()));
      return;
    }
    const cancellation = new CallCancellation();
    let answered = false;
    const succeed = (reply: unknown) => {
      if (answered) return;
      answered = true;
      callback(null, reply);
    };
    const fail = (error: unknown) => {
      if (answered) return;
      answered = true;
      callback(toGrpcStatus(error));
    };
    const leave = inFlight.enter((reason) => {
      cancellation.abort(reason);
      fail(reason);
    });
    // grpc-js emits this once for every call, after its status went out or when it ended without one.
    call.once("cancelled", () => {
      if (!cancellation.aborted) cancellation.abort(endReason(call, answered));
      answered = true;
      leave();
    });
    let result: unknown;
    try {
      result = handler(call.request as never, handlerContextFromGrpc(call.metadata, cancellation));
    } catch (error) {
      fail(error);
      return;
    }
    if (isThenable(result)) Promise.resolve(result).then(succeed, fail);
    else succeed(result);
  };
}

/**
 * A server-streaming grpc-js handler around a Trestle async generator: each reply is written as it is yielded,
 * waiting while the client reads slower than the engine writes. When the caller goes away the generator is ended
 * (its `finally` runs), not awaited, because a generator busy on something that ignores the signal must not hold
 * the call open.
 */
function serveServerStream(
  handler: StreamHandler,
  inFlight: InFlightCalls,
  secretCheck: CallSecretCheck | undefined,
): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    if (secretCheck && !secretCheck.acceptsGrpc(call.metadata)) {
      call.emit("error", toGrpcStatus(secretCheck.refusal()));
      return;
    }
    const cancellation = new CallCancellation();
    const signal = cancellation.signal;
    let finished = false;
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      if (error === undefined) call.end();
      else call.emit("error", toGrpcStatus(error));
    };
    const leave = inFlight.enter((reason) => {
      cancellation.abort(reason);
      finish(reason);
    });
    call.once("cancelled", () => {
      if (!cancellation.aborted) cancellation.abort(endReason(call, finished));
      finished = true;
      leave();
    });
    const context = handlerContextFromGrpc(call.metadata, cancellation);
    void (async () => {
      let iterator: AsyncIterator<unknown> | undefined;
      try {
        iterator = handler(call.request as never, context)[Symbol.asyncIterator]();
        for (;;) {
          const next = await untilAborted(iterator.next(), signal);
          if (next.done || finished) break;
          if (!call.write(next.value)) await untilAborted(once(call, "drain"), signal);
        }
        finish();
      } catch (error) {
        finish(error);
      } finally {
        if (iterator?.return) void Promise.resolve(iterator.return()).catch(() => undefined);
      }
    })();
  };
}

function pathOf(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/**
 * Registers on a grpc-js server every method of the five Wanaku v1 services that has a handler; grpc-js answers
 * the others `UNIMPLEMENTED`. Messages cross the wire through the generated schemas (`toBinary` / `fromBinary`),
 * as they do through Connect. With `secretCheck`, a call without the call secret fails `UNAUTHENTICATED` before
 * its handler runs.
 */
export function registerGrpcHandlers(
  server: grpc.Server,
  handlers: CapabilityHandlers,
  inFlight: InFlightCalls,
  secretCheck?: CallSecretCheck,
): void {
  const unary: [DescMethod, UnaryHandler | undefined][] = [
    [ToolInvoker.method.invokeTool, handlers.toolInvoker?.bind(handlers)],
    [ResourceAcquirer.method.resourceAcquire, handlers.resourceAcquirer?.bind(handlers)],
    [Provisioner.method.provision, handlers.provisioner?.bind(handlers)],
    [HealthProbe.method.getStatus, handlers.healthProbe?.bind(handlers)],
  ];
  for (const [method, handler] of unary) {
    if (!handler) continue;
    server.register(
      pathOf(method),
      serveUnary(handler, inFlight, secretCheck),
      serializerOf(method.output),
      deserializerOf(method.input),
      "unary",
    );
  }
  const executeCode = handlers.codeExecutor?.bind(handlers);
  if (executeCode) {
    const method = CodeExecutor.method.executeCode;
    server.register(
      pathOf(method),
      serveServerStream(executeCode, inFlight, secretCheck),
      serializerOf(method.output),
      deserializerOf(method.input),
      "serverStream",
    );
  }
}
