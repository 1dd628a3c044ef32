import {
  type CodeOutput,
  createContextKey,
  createContextValues,
  type Interceptor,
  type TransportRequest,
  type TransportResponse,
} from "@trestle/core";
import type { DescribeCall } from "./call-description.js";
import { transportOf } from "./call-description.js";
import type { CallMetrics, GaugeCell } from "./call-metrics.js";
import { errorOutcome, resultOutcome } from "./outcome.js";

/** The two layers metrics take in the interceptor chain. */
export interface CallMetricsInterceptors {
  /**
   * Outside the concurrency limit: counts every call (refused ones too), times it from entry to end, and holds it
   * in `trestle_calls_in_flight` and, until {@link admitted} sees it, in `trestle_calls_queued`.
   */
  readonly calls: Interceptor;
  /** Just inside the concurrency limit: the call got its slot, so it leaves the queue. */
  readonly admitted: Interceptor;
}

/** Whether a call still waits for its slot: set by the outer layer, cleared by the inner one. */
interface QueueMark {
  waiting: boolean;
  /** The call's service's `trestle_calls_queued` series, which counts it while it waits. */
  readonly queued: GaugeCell;
}

/** Where the two layers keep a call's {@link QueueMark}: its context values, which every copy of its options shares. */
const queueMarkKey = createContextKey<QueueMark | undefined>(undefined, {
  description: "trestle.metrics.queue",
});

/** Measures a stream: the call ends when the consumer reads its end, it fails, or the consumer stops early. */
function measuredStream(
  stream: AsyncIterable<CodeOutput>,
  end: (error: unknown, failed: boolean) => void,
): AsyncIterable<CodeOutput> {
  return {
    [Symbol.asyncIterator]() {
      const inner = stream[Symbol.asyncIterator]();
      let done = false;
      const finish = (error: unknown, failed: boolean) => {
        if (done) return;
        done = true;
        end(error, failed);
      };
      return {
        async next() {
          try {
            const step = await inner.next();
            if (step.done) finish(undefined, false);
            return step;
          } catch (error) {
            finish(error, true);
            throw error;
          }
        },
        async return(value?: unknown) {
          finish(undefined, false);
          return inner.return ? inner.return(value) : { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * The call path's metric interceptors. Health probes are not calls and pass through unmeasured. Labels come from
 * the request's target (service, transport, method) and from `describe` (namespace, tool, principal class).
 */
export function callMetricsInterceptors(
  metrics: CallMetrics,
  describe: DescribeCall,
): CallMetricsInterceptors {
  const calls: Interceptor =
    (next) =>
    <R extends TransportRequest>(incoming: R): TransportResponse<R> => {
      if (incoming.method === "probeHealth") return next(incoming);
      const service = incoming.target.serviceName;
      const transport = transportOf(incoming);
      const started = performance.now();
      const inFlight = metrics.inFlight(service, transport);
      inFlight.value++;
      const mark: QueueMark = { waiting: true, queued: metrics.queued(service) };
      mark.queued.value++;
      // The bridges give each call its own context values; a call without them gets a bag here.
      const request = incoming.options.contextValues
        ? incoming
        : { ...incoming, options: { ...incoming.options, contextValues: createContextValues() } };
      request.options.contextValues?.set(queueMarkKey, mark);
      const end = (outcome: string) => {
        if (mark.waiting) {
          mark.waiting = false;
          mark.queued.value--;
        }
        inFlight.value--;
        const d = describe(incoming);
        metrics.recordCall(
          [d.namespace, d.tool, service, transport, request.method, d.principalClass, outcome],
          (performance.now() - started) / 1000,
        );
      };
      let response: TransportResponse<R>;
      try {
        response = next(request as R);
      } catch (error) {
        end(errorOutcome(error));
        throw error;
      }
      if (request.method === "executeCode") {
        const stream = response as AsyncIterable<CodeOutput>;
        return measuredStream(stream, (error, failed) =>
          end(failed ? errorOutcome(error) : "ok"),
        ) as TransportResponse<R>;
      }
      return (response as Promise<unknown>).then(
        (result) => {
          end(resultOutcome(result));
          return result;
        },
        (error: unknown) => {
          end(errorOutcome(error));
          throw error;
        },
      ) as TransportResponse<R>;
    };
  const admitted: Interceptor =
    (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      const mark = request.options.contextValues?.get(queueMarkKey);
      if (mark?.waiting) {
        mark.waiting = false;
        mark.queued.value--;
      }
      return next(request);
    };
  return { calls, admitted };
}
