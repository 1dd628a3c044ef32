import {
  type CodeOutput,
  type Interceptor,
  type ServiceTarget,
  type TransportRequest,
  type TransportResponse,
  TrestleError,
} from "@trestle/core";
import { isServiceFailure } from "@trestle/core/errors";
import type { CallOutcomeListener } from "@trestle/core/routing";

/** Runs `fn`, swallowing anything it throws: a misbehaving listener never fails a call. */
function guarded(fn: () => void): void {
  try {
    fn();
  } catch {
    // The listener contract forbids throwing; a call must not fail because an observer did.
  }
}

const failed = (error: unknown): boolean => isServiceFailure(TrestleError.from(error));

/**
 * An interceptor that tells `listener` (the resolver: load tracking and the circuit breaker) when each call to
 * a service starts and ends, and whether it ended because the service could not serve it (unreachable,
 * deadline, not ready: see `isServiceFailure`). Tool calls, resource reads and prompts count from the moment
 * they are handed on until they settle; a code execution stream from its first read until it ends, fails or its
 * consumer stops (a consumer that stops is no failure of the service). Provisioning and health probes are not
 * reported: the prober judges health on its own. Place it inside the concurrency limit, so that a call waiting
 * for a slot does not count as load on the service.
 *
 * @example
 * ```ts
 * const transport = withInterceptors(grpc, [concurrencyLimit(limitsFor), outcomeFeedback(registry.resolver)]);
 * ```
 */
export function outcomeFeedback(listener: CallOutcomeListener): Interceptor {
  const started = (target: ServiceTarget) => guarded(() => listener.callStarted?.(target));
  const ended = (target: ServiceTarget, serviceFailure: boolean) =>
    guarded(() => listener.callEnded?.(target, serviceFailure));
  return (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      const { target } = request;
      switch (request.method) {
        case "callTool":
        case "readResource":
        case "getPrompt": {
          started(target);
          let response: Promise<unknown>;
          try {
            response = next(request) as Promise<unknown>;
          } catch (error) {
            ended(target, failed(error));
            throw error;
          }
          return response.then(
            (result) => {
              ended(target, false);
              return result;
            },
            (error: unknown) => {
              ended(target, failed(error));
              throw error;
            },
          ) as TransportResponse<R>;
        }
        case "executeCode": {
          async function* observed(): AsyncGenerator<CodeOutput> {
            started(target);
            let serviceFailure = false;
            try {
              yield* next(request) as AsyncIterable<CodeOutput>;
            } catch (error) {
              serviceFailure = failed(error);
              throw error;
            } finally {
              ended(target, serviceFailure);
            }
          }
          return observed() as unknown as TransportResponse<R>;
        }
        default:
          return next(request);
      }
    };
}
