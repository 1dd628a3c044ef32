import { Histogram, type HistogramConfiguration } from "prom-client";
import type { SeriesLabels } from "./series-table.js";

/** What one histogram series recorded: its labels (made once), its observations' count and sum, and per bucket. */
export interface HistogramCell<L extends string> {
  readonly labels: SeriesLabels<L>;
  /** Observations recorded. */
  count: number;
  /** Their sum, added in the order they were recorded (as prom-client adds them, so the same float). */
  sum: number;
  /** Per upper bound (same index), observations in that bucket alone (not cumulative); none past the last bound. */
  readonly buckets: number[];
}

/** A new, empty cell for a histogram with `boundCount` upper bounds. */
export function newHistogramCell<L extends string>(
  labels: SeriesLabels<L>,
  boundCount: number,
): HistogramCell<L> {
  return { labels, count: 0, sum: 0, buckets: new Array<number>(boundCount).fill(0) };
}

/**
 * Records `value` into `cell`: the first bucket whose upper bound is at least `value` (a linear scan: there are few
 * bounds), none when it is past them all; as prom-client's `observe` does, without validating or hashing labels.
 */
export function observeInto(
  cell: HistogramCell<string>,
  upperBounds: readonly number[],
  value: number,
): void {
  cell.count += 1;
  cell.sum += value;
  for (let i = 0; i < upperBounds.length; i++) {
    if (value <= (upperBounds[i] as number)) {
      (cell.buckets[i] as number)++;
      return;
    }
  }
}

/** One line of a histogram's exposition, in the shape prom-client's own Histogram gives its registry. */
interface HistogramValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/** A histogram's metric object as `getForPromString` returns it (what the registry renders). */
interface HistogramMetricObject {
  name: string;
  help: string;
  type: "histogram";
  values: HistogramValue[];
  aggregator: string;
}

/**
 * A prom-client `Histogram` whose series live in cells recorded elsewhere ({@link observeInto}): the registry
 * renders it like any histogram, reading the cells from `cells` when scraped, and the values it gets are those
 * prom-client's own Histogram gives for the same observations (`_bucket` with cumulative counts and `le` up to
 * `+Inf`, then `_sum` and `_count`, per series in the order of first observation). Nothing is recorded through it:
 * its own `observe` is never called.
 */
export class CellHistogram<L extends string> extends Histogram<L> {
  readonly #cells: () => readonly HistogramCell<L>[];
  readonly #upperBounds: readonly number[];

  /** @param configuration As prom-client's; its `buckets` are the bounds the cells were recorded with. */
  constructor(
    configuration: HistogramConfiguration<L> & { buckets: readonly number[] },
    cells: () => readonly HistogramCell<L>[],
  ) {
    super({ ...configuration, buckets: [...configuration.buckets] });
    this.#cells = cells;
    this.#upperBounds = [...configuration.buckets];
  }

  /**
   * The metric object the registry renders as text (prom-client calls it when present); prom-client's `get` builds
   * on it too, merging each value's labels with its series' labels.
   */
  async getForPromString(): Promise<HistogramMetricObject> {
    // prom-client sets these from the configuration; its typings do not declare them.
    const self = this as unknown as { name: string; help: string; aggregator: string };
    const { name } = self;
    const upperBounds = this.#upperBounds;
    const bucketName = `${name}_bucket`;
    const values: HistogramValue[] = [];
    for (const cell of this.#cells()) {
      let cumulative = 0;
      for (let i = 0; i < upperBounds.length; i++) {
        cumulative += cell.buckets[i] as number;
        values.push({
          labels: { le: upperBounds[i] as number },
          sharedLabels: cell.labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      }
      values.push(
        {
          labels: { le: "+Inf" },
          sharedLabels: cell.labels,
          value: cell.count,
          metricName: bucketName,
          exemplar: null,
        },
        {
          labels: {},
          sharedLabels: cell.labels,
          value: cell.sum,
          metricName: `${name}_sum`,
          exemplar: undefined,
        },
        {
          labels: {},
          sharedLabels: cell.labels,
          value: cell.count,
          metricName: `${name}_count`,
          exemplar: undefined,
        },
      );
    }
    return { name, help: self.help, type: "histogram", values, aggregator: self.aggregator };
  }
}
