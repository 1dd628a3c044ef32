/** One reading of a process's memory during a load: how many calls had been answered, and its RSS then. */
export interface MemorySample {
  /** Time since the measured window began, ms. */
  elapsedMs: number;
  /** Calls answered since the measured window began. */
  calls: number;
  /** VmRSS, bytes. */
  rssBytes: number;
}

/** What a series of {@link MemorySample}s says about growth. */
export interface MemoryGrowth {
  samples: number;
  /** Calls between the first and the last sample. */
  calls: number;
  rssStartBytes: number;
  rssEndBytes: number;
  rssMinBytes: number;
  rssMaxBytes: number;
  /**
   * Least-squares slope of RSS over calls, bytes per call: the figure a target is held to, since single RSS
   * readings jump with each garbage collection. NaN with fewer than two distinct call counts.
   */
  slopeBytesPerCall: number;
  /** (last RSS − first RSS) ÷ calls between them; NaN when no call was answered. */
  growthBytesPerCall: number;
}

/**
 * The least-squares slope of y over x (ordinary linear regression). NaN when there are fewer than two points or
 * every x is the same, since no line is then defined.
 */
export function leastSquaresSlope(points: ReadonlyArray<{ x: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  let sumX = 0;
  let sumY = 0;
  for (const p of points) {
    sumX += p.x;
    sumY += p.y;
  }
  const meanX = sumX / n;
  const meanY = sumY / n;
  // Centred sums: RSS values are around 1e8 and call counts around 1e6, so raw sums of products lose precision.
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - meanX) * (p.y - meanY);
    sxx += (p.x - meanX) ** 2;
  }
  return sxx === 0 ? Number.NaN : sxy / sxx;
}

/**
 * Summarises the RSS samples of a measured window, in the order taken.
 * @throws Error when there is no sample.
 */
export function summariseMemoryGrowth(samples: readonly MemorySample[]): MemoryGrowth {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last) throw new Error("no memory sample was taken");
  const rss = samples.map((s) => s.rssBytes);
  const calls = last.calls - first.calls;
  return {
    samples: samples.length,
    calls,
    rssStartBytes: first.rssBytes,
    rssEndBytes: last.rssBytes,
    rssMinBytes: Math.min(...rss),
    rssMaxBytes: Math.max(...rss),
    slopeBytesPerCall: leastSquaresSlope(samples.map((s) => ({ x: s.calls, y: s.rssBytes }))),
    growthBytesPerCall: calls > 0 ? (last.rssBytes - first.rssBytes) / calls : Number.NaN,
  };
}
