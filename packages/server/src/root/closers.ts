/** Something the router opened, and how to close it. */
export interface Closer {
  /** What it is, for the log line when closing it fails. */
  readonly name: string;
  close(): void | Promise<void>;
}

/**
 * The router's modules' closers, closed in the reverse of the order they were opened: what was opened last (and
 * may use what came before) closes first. A closer that fails is reported and the rest still close.
 */
export interface CloserStack {
  /** Adds a closer on top of the stack. */
  push(name: string, close: () => void | Promise<void>): void;
  /** Closes everything, last opened first; resolves once all are closed. Idempotent. */
  closeAll(): Promise<void>;
}

/** Creates an empty {@link CloserStack}; `onError` hears of each closer that threw. */
export function createCloserStack(onError: (name: string, error: unknown) => void): CloserStack {
  const closers: Closer[] = [];
  let closing: Promise<void> | undefined;
  return {
    push(name, close) {
      closers.push({ name, close });
    },
    closeAll() {
      closing ??= (async () => {
        for (const closer of closers.reverse()) {
          try {
            await closer.close();
          } catch (error) {
            onError(closer.name, error);
          }
        }
        closers.length = 0;
      })();
      return closing;
    },
  };
}
