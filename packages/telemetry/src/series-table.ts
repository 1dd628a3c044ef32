/** The label values of one series, keyed by label name (the object prom-client is handed at scrape time). */
export type SeriesLabels<L extends string> = Readonly<Record<L, string>>;

/** A level of a {@link SeriesTable}: maps one label's value to the next level, or to the cell at the last label. */
type Level = Map<string, unknown>;

/**
 * The cells of one metric's series, found by their label values without building or hashing a label object: one
 * `Map` per label, nested in the order of `labelNames`, the last one holding the cells. A cell is made on the first
 * lookup of its values, with its labels object (made once, keys in `labelNames` order, so the exposition's label
 * order is prom-client's); {@link cells} lists them in that order of first use, as prom-client's own map does.
 *
 * There is no cap: a table holds one cell per combination of label values ever recorded, as prom-client does, so
 * its owner must only record values from bounded sets (see `createCallMetrics`).
 */
export class SeriesTable<L extends string, C> {
  readonly #root: Level = new Map();
  readonly #cells: C[] = [];
  readonly #labelNames: readonly L[];
  readonly #makeCell: (labels: SeriesLabels<L>) => C;

  /**
   * @param labelNames The labels, in the order {@link cell} takes their values. At least one.
   * @param makeCell Makes the cell of a series seen for the first time.
   */
  constructor(labelNames: readonly L[], makeCell: (labels: SeriesLabels<L>) => C) {
    if (labelNames.length === 0) throw new Error("A series table needs at least one label name");
    this.#labelNames = labelNames;
    this.#makeCell = makeCell;
  }

  /** The cell of the series whose label values are `values`, in `labelNames` order; made on first use. */
  cell(values: readonly string[]): C {
    const last = this.#labelNames.length - 1;
    let level = this.#root;
    for (let i = 0; i < last; i++) {
      const value = values[i] as string;
      let next = level.get(value) as Level | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = values[last] as string;
    const found = level.get(value) as C | undefined;
    if (found !== undefined) return found;
    const made = this.#makeCell(this.#labelsOf(values));
    level.set(value, made);
    this.#cells.push(made);
    return made;
  }

  /** Every cell, in the order their series were first recorded. */
  cells(): readonly C[] {
    return this.#cells;
  }

  #labelsOf(values: readonly string[]): SeriesLabels<L> {
    if (values.length !== this.#labelNames.length) {
      throw new Error(
        `Expected ${this.#labelNames.length} label values (${this.#labelNames.join(", ")}), got ${values.length}`,
      );
    }
    const labels = {} as Record<L, string>;
    this.#labelNames.forEach((name, i) => {
      const value = values[i];
      if (typeof value !== "string") throw new TypeError(`Label ${name} has no string value`);
      labels[name] = value;
    });
    return Object.freeze(labels);
  }
}
