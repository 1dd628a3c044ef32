/** How long to wait before retry number `attempt` (0-based). */
export interface RetryBackoff {
  delayMs(attempt: number): number;
}

/**
 * Exponential backoff with jitter: the ceiling doubles from `initialMs` up to `maxMs`, and each delay is drawn
 * between half the ceiling and the ceiling, so that services restarted together do not call the router in step.
 */
export function createRetryBackoff(
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): RetryBackoff {
  return {
    delayMs(attempt) {
      const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
      return Math.round(ceiling / 2 + (random() * ceiling) / 2);
    },
  };
}
