import type { CallOptions } from "./call.js";

/**
 * A call's cancellation as whoever runs the call reads it: a transport that cancels the call on its wire, an
 * interceptor that stops waiting. It says what an `AbortSignal` says, without being one: on Node 20 every
 * `AbortSignal` gets a hidden class of its own (about 4 µs and three maps in the old generation each, where Node 22
 * takes 0.1 µs), too much to make for each of thousands of calls a second that nobody cancels. Its
 * {@link Cancellation.signal} is made on first read, for an API that takes an `AbortSignal`.
 *
 * Read a call's with {@link cancellationOf}, which also serves callers that gave only a `signal`.
 */
export interface Cancellation {
  /** True once cancelled. */
  readonly aborted: boolean;
  /** Why it was cancelled; `undefined` until it is. */
  readonly reason: unknown;
  /** An `AbortSignal` that aborts with it, with the same reason. Made on first read: read it only to pass it on. */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once when cancelled; never when already cancelled (check {@link Cancellation.aborted}
   * first), as `AbortSignal` does.
   */
  onAbort(listener: () => void): void;
  /** Forgets a listener given to {@link Cancellation.onAbort}; the call ended, nothing is left to cancel. */
  offAbort(listener: () => void): void;
}

/**
 * Makes and cancels a {@link Cancellation}, as `AbortController` does an `AbortSignal`; it is its own
 * cancellation, so a call costs one object.
 *
 * @example
 * const cancellation = new CancellationController();
 * const pending = transport.callTool(call, target, setCancellation({ timeoutMs: 5_000 }, cancellation));
 * cancellation.abort(new Error("the client went away"));
 */
export class CancellationController implements Cancellation {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  /** One listener is the common case (the transport's); more are kept in an array. */
  #listener: (() => void) | undefined;
  #listeners: (() => void)[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  onAbort(listener: () => void): void {
    if (this.#aborted) return;
    if (!this.#listener && !this.#listeners) {
      this.#listener = listener;
      return;
    }
    this.#listeners ??= [];
    this.#listeners.push(listener);
  }

  offAbort(listener: () => void): void {
    if (this.#listener === listener) {
      this.#listener = undefined;
      return;
    }
    const index = this.#listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.#listeners?.splice(index, 1);
  }

  /**
   * Cancels: the listeners run (each once, in the order they came), then the signal, if one was made, aborts.
   * Later calls change nothing. The reason defaults to an `AbortError`, as `AbortController.abort()`'s does.
   */
  abort(reason: unknown = new DOMException("This operation was aborted", "AbortError")): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = [...(this.#listener ? [this.#listener] : []), ...(this.#listeners ?? [])];
    this.#listener = undefined;
    this.#listeners = undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As a throwing `abort` event listener does: reported as uncaught, the other listeners still run.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.#controller?.abort(reason);
  }
}

/** A {@link Cancellation} that follows an `AbortSignal` (a caller gave only a signal). */
class SignalCancellation implements Cancellation {
  constructor(readonly signal: AbortSignal) {}

  get aborted(): boolean {
    return this.signal.aborted;
  }

  get reason(): unknown {
    return this.signal.reason;
  }

  onAbort(listener: () => void): void {
    this.signal.addEventListener("abort", listener, { once: true });
  }

  offAbort(listener: () => void): void {
    this.signal.removeEventListener("abort", listener);
  }
}

/**
 * A call's cancellation: `options.cancellation`, else one that follows `options.signal`, else `undefined` (nobody
 * can cancel the call). Transports and interceptors read cancellation through it, so that a caller who gave a
 * {@link Cancellation} never has an `AbortSignal` made for it.
 */
export function cancellationOf(options: CallOptions | undefined): Cancellation | undefined {
  if (!options) return undefined;
  if (options.cancellation) return options.cancellation;
  return options.signal ? new SignalCancellation(options.signal) : undefined;
}

/**
 * `options.signal`, read through an accessor that one function serves for all options objects: V8 then shares
 * their hidden class, as it would not with a closure per call.
 */
function signalOfCancellation(this: CallOptions): AbortSignal | undefined {
  return this.cancellation?.signal;
}

/**
 * Gives `options` the cancellation `cancellation`: as `options.cancellation`, and as `options.signal`, an
 * `AbortSignal` made from it when something first reads it (a transport that knows only `signal` still sees the
 * call cancelled; one that reads {@link cancellationOf} never makes a signal). Returns `options`.
 */
export function setCancellation(options: CallOptions, cancellation: Cancellation): CallOptions {
  options.cancellation = cancellation;
  Object.defineProperty(options, "signal", {
    get: signalOfCancellation,
    enumerable: true,
    configurable: true,
  });
  return options;
}
