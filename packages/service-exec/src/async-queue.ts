/** A single-consumer queue: producers push, one async iterator pulls, `end` finishes it. */
export interface AsyncQueue<T> extends AsyncIterable<T> {
  push(item: T): void;
  end(): void;
}

/** Creates an {@link AsyncQueue}. Items pushed after `end` are dropped. */
export function createAsyncQueue<T>(): AsyncQueue<T> {
  const items: T[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    push(item) {
      if (ended) return;
      items.push(item);
      notify();
    },
    end() {
      ended = true;
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const item = items.shift();
        if (item !== undefined) {
          yield item;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
