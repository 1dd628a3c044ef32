/**
 * Resolves with the first event that `predicate` accepts, or rejects after `timeoutMs` naming `what`:
 * tests await events, never sleep.
 */
export function nextEvent<E>(
  subscribe: (listener: (event: E) => void) => () => void,
  predicate: (event: E) => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<E> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const unsubscribe = subscribe((event) => {
      if (!predicate(event)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(event);
    });
  });
}

/** A short random suffix, so tests sharing one database never collide on names. */
export function uniqueSuffix(): string {
  return Math.random().toString(36).slice(2, 8);
}
