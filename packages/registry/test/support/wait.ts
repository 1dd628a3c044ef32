/**
 * Resolves with the first event that `predicate` accepts, or rejects after `timeoutMs` naming `what`:
 * tests await events, never sleep. The bound is generous because a loaded CI machine has delayed a change
 * feed's notification past 5 s; an event that never comes still fails.
 */
export function nextEvent<E>(
  subscribe: (listener: (event: E) => void) => () => void,
  predicate: (event: E) => boolean,
  what: string,
  timeoutMs = 15_000,
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

/**
 * Resolves once `check` holds, looking again every 10 ms; rejects after `timeoutMs` naming `what`. For a state
 * reached through the change feed that no single event announces.
 */
export async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A short random suffix, so tests sharing one database never collide on names. */
export function uniqueSuffix(): string {
  return Math.random().toString(36).slice(2, 8);
}
