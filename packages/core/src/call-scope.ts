import { Code, TrestleError } from "./error.js";

/** A deadline and a cancellation signal merged into one scope for one call. */
export interface CallScope {
  /** Aborts when the caller's signal aborts or the deadline passes; `reason` is a `TrestleError`. */
  readonly signal: AbortSignal;
  /** Stops the deadline timer; call it when the call ends. */
  dispose(): void;
}

/**
 * Merges a caller's `AbortSignal` with a deadline of `timeoutMs`. The scope's signal aborts with a
 * `TrestleError` of code `Canceled` or `DeadlineExceeded`, so that whoever observes it can rethrow the reason.
 * Useful to transports whose wire library has no deadline of its own.
 */
export function createCallScope(signal: AbortSignal | undefined, timeoutMs: number): CallScope {
  const controller = new AbortController();
  const onAbort = () =>
    controller.abort(
      new TrestleError("The call was cancelled by the caller", Code.Canceled, { cause: signal?.reason }),
    );
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new TrestleError(`The deadline of ${timeoutMs} ms passed`, Code.DeadlineExceeded)),
    timeoutMs,
  );
  timer.unref?.();
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Resolves or rejects with `promise`, or rejects with the signal's reason as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // Nobody awaits `promise` any more: its later failure must not surface as an unhandled rejection.
    promise.catch(() => undefined);
    return Promise.reject(TrestleError.from(signal.reason, Code.Canceled));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(TrestleError.from(signal.reason, Code.Canceled));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
