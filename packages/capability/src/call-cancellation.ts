/**
 * The cancellation of one call on the lean gRPC server. Its `AbortSignal` is made only when someone reads `signal`
 * (a handler that never looks at it costs no signal), and so is the abort's reason; one read after
 * {@link CallCancellation.abort} gets a signal already aborted with that reason.
 */
export class CallCancellation {
  #controller: AbortController | undefined;
  #reason: (() => unknown) | undefined;
  #aborted = false;

  /** Aborted once {@link CallCancellation.abort} has been called. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason());
    }
    return this.#controller.signal;
  }

  /** True once aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /**
   * Aborts with the reason `reason` makes, called only if the signal is (or gets) read; later calls change
   * nothing.
   */
  abort(reason: () => unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason());
  }
}
