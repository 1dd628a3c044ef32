/** Options for {@link stopOnSignals}. */
export interface StopOnSignalsOptions {
  /** Which signals stop the service. Default `SIGTERM` and `SIGINT`. */
  signals?: NodeJS.Signals[];
}

/**
 * Runs `stop` (deregister, close the server, …) on the first SIGTERM or SIGINT, then lets the process end on its
 * own. The handlers are removed once the signal arrives, so a second signal ends the process at once, as usual.
 * Returns a function that removes the handlers without stopping.
 *
 * @example
 * ```ts
 * stopOnSignals(async () => {
 *   await registration.stop();
 *   await server.close();
 * });
 * ```
 */
export function stopOnSignals(
  stop: () => Promise<void> | void,
  options: StopOnSignalsOptions = {},
): () => void {
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  const remove = () => {
    for (const signal of signals) process.removeListener(signal, onSignal);
  };
  function onSignal() {
    remove();
    void Promise.resolve()
      .then(stop)
      .catch(() => {
        process.exitCode = 1;
      });
  }
  for (const signal of signals) process.once(signal, onSignal);
  return remove;
}
