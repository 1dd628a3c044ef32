import type { EventEmitter } from "node:events";

/** What {@link installProcessSafetyNet} needs. */
export interface ProcessSafetyNetOptions {
  /** The router's logger. */
  logger: {
    error(fields: Record<string, unknown>, message: string): void;
    fatal(fields: Record<string, unknown>, message: string): void;
  };
  /** Stops the router gracefully (drain, close) and exits with `code`. */
  stop(code: number): Promise<void> | void;
  /** After an uncaught exception, the process exits this many milliseconds later even if `stop` hangs. */
  exitDeadlineMs: number;
  /** `process.exit` by default. */
  exit?: (code: number) => void;
  /** The emitter of `unhandledRejection` and `uncaughtException`: `process` by default. */
  target?: EventEmitter;
}

/**
 * Installs the serve command's policy for errors nothing else caught; returns a function that removes it.
 *
 * - `unhandledRejection`: a promise nobody awaited failed. The failure belongs to one piece of work that is over;
 *   the router's state is intact, so it is logged (error level) and the router keeps serving. Node's default
 *   would crash the process, letting any client that finds such a path stop the router for everyone.
 * - `uncaughtException`: an exception escaped a callback, with no way to know what it left half done (a
 *   session map, a pooled connection, a half-written response). Node documents that resuming is not safe, so
 *   the router logs it (fatal), stops gracefully — in-flight calls may finish, up to the drain timeout — and
 *   exits with code 1 for its supervisor (container runtime, systemd) to restart it; the catalog and registry
 *   live in the store, so a restart loses only in-memory sessions. A second one while stopping, or a stop that
 *   outlives `exitDeadlineMs`, exits at once.
 */
export function installProcessSafetyNet(options: ProcessSafetyNetOptions): () => void {
  const target = options.target ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;

  const onRejection = (reason: unknown) => {
    options.logger.error(
      { err: reason },
      "unhandled promise rejection: logged, and the router keeps serving (this is a bug: please report it)",
    );
  };
  const onException = (error: unknown, origin?: unknown) => {
    options.logger.fatal(
      { err: error, origin },
      "uncaught exception: the router stops (exit code 1) and should be restarted by its supervisor",
    );
    if (stopping) {
      exit(1);
      return;
    }
    stopping = true;
    setTimeout(() => exit(1), options.exitDeadlineMs).unref();
    Promise.resolve()
      .then(() => options.stop(1))
      .catch(() => exit(1));
  };
  target.on("unhandledRejection", onRejection);
  target.on("uncaughtException", onException);
  return () => {
    target.off("unhandledRejection", onRejection);
    target.off("uncaughtException", onException);
  };
}
