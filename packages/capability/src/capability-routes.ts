import type {
  ConnectError,
  HandlerContext as ConnectHandlerContext,
  ConnectRouter,
} from "@connectrpc/connect";
import type { HandlerContext } from "@trestle/core";
import { CodeExecutor, HealthProbe, Provisioner, ResourceAcquirer, ToolInvoker } from "@trestle/proto";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { handlerContextFrom } from "./handler-context.js";
import { toConnectError } from "./handler-error.js";
import { untilAborted } from "./until-aborted.js";

/** Counts the calls being served, so that a graceful close knows when the last one has ended. */
export interface InFlightCalls {
  /**
   * Notes a call as started; the returned function notes it as ended. `cancel`, when given, is how a closing
   * server that ran out of patience ends the call (Connect calls are ended through the adapter's shutdown signal
   * instead).
   */
  enter(cancel?: (reason: ConnectError) => void): () => void;
}

function unary<Req, Res>(
  handler: ((request: Req, context: HandlerContext) => Promise<Res> | Res) | undefined,
  inFlight: InFlightCalls,
) {
  if (!handler) return undefined;
  return async (request: Req, connectContext: ConnectHandlerContext): Promise<Res> => {
    const leave = inFlight.enter();
    try {
      const context = handlerContextFrom(connectContext);
      return await untilAborted(
        Promise.resolve().then(() => handler(request, context)),
        context.signal,
      );
    } catch (error) {
      throw toConnectError(error);
    } finally {
      leave();
    }
  };
}

function serverStreaming<Req, Res>(
  handler: ((request: Req, context: HandlerContext) => AsyncIterable<Res>) | undefined,
  inFlight: InFlightCalls,
) {
  if (!handler) return undefined;
  return async function* (request: Req, connectContext: ConnectHandlerContext): AsyncIterable<Res> {
    const leave = inFlight.enter();
    const context = handlerContextFrom(connectContext);
    let iterator: AsyncIterator<Res> | undefined;
    try {
      iterator = handler(request, context)[Symbol.asyncIterator]();
      for (;;) {
        const next = await untilAborted(iterator.next(), context.signal);
        if (next.done) return;
        yield next.value;
      }
    } catch (error) {
      throw toConnectError(error);
    } finally {
      // Ends the handler's generator (its `finally` runs) when the caller went away or broke off; not awaited,
      // because a generator busy on something that ignores the signal must not hold this call open.
      if (iterator?.return) void Promise.resolve(iterator.return()).catch(() => undefined);
      leave();
    }
  };
}

/**
 * Registers the five Wanaku v1 services on a Connect router, each method backed by its handler. A method
 * whose handler is missing is left out, so the router answers it with `UNIMPLEMENTED`.
 */
export function capabilityRoutes(handlers: CapabilityHandlers, inFlight: InFlightCalls) {
  const defined = <T extends object>(impl: T): Partial<T> =>
    Object.fromEntries(Object.entries(impl).filter(([, fn]) => fn !== undefined)) as Partial<T>;
  return (router: ConnectRouter): void => {
    router.service(
      ToolInvoker,
      defined({ invokeTool: unary(handlers.toolInvoker?.bind(handlers), inFlight) }),
    );
    router.service(
      ResourceAcquirer,
      defined({ resourceAcquire: unary(handlers.resourceAcquirer?.bind(handlers), inFlight) }),
    );
    router.service(
      Provisioner,
      defined({ provision: unary(handlers.provisioner?.bind(handlers), inFlight) }),
    );
    router.service(
      HealthProbe,
      defined({ getStatus: unary(handlers.healthProbe?.bind(handlers), inFlight) }),
    );
    router.service(
      CodeExecutor,
      defined({ executeCode: serverStreaming(handlers.codeExecutor?.bind(handlers), inFlight) }),
    );
  };
}
