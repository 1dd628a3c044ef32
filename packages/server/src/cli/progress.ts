import type { CliOutput } from "./context.js";

/** Options for {@link withProgress}. */
export interface ProgressOptions {
  /** Milliseconds between redraws on a terminal. Default 250. */
  tickMs?: number;
  /** Milliseconds between progress lines when not on a terminal (a log, CI). Default 5 000. */
  lineEveryMs?: number;
  /** Milliseconds since some origin; `Date.now` by default. */
  clock?: () => number;
}

function elapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60
    ? `${seconds}s`
    : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/**
 * Shows that `work` is still going on `stream` (stderr) until it settles: on a terminal one line redrawn with
 * the time elapsed, erased at the end; elsewhere a line every `lineEveryMs`, so a log shows the wait without
 * being flooded. Resolves or rejects as `work` does.
 *
 * @example
 * ```ts
 * const view = await withProgress(process.stderr, "starting forward github", client.forwards.add(forward));
 * ```
 */
export async function withProgress<T>(
  stream: CliOutput,
  label: string,
  work: Promise<T>,
  options: ProgressOptions = {},
): Promise<T> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const tty = stream.isTTY === true;
  const timer = setInterval(
    () => {
      const line = `${label}… ${elapsed(clock() - started)}`;
      stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    },
    tty ? (options.tickMs ?? 250) : (options.lineEveryMs ?? 5_000),
  );
  try {
    return await work;
  } finally {
    clearInterval(timer);
    if (tty) stream.write("\r\x1b[2K");
  }
}
