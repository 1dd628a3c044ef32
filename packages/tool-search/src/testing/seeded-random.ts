/** A deterministic source of pseudo-random numbers: the same seed gives the same sequence on every machine. */
export interface SeededRandom {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, bound). */
  below(bound: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** True with the given probability. */
  chance(probability: number): boolean;
}

/**
 * Creates a seeded generator (mulberry32: 32 bits of state, fast, good enough for test data; not for secrets).
 *
 * @param seed - Any integer; only its low 32 bits are used.
 */
export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (bound: number): number => Math.floor(next() * bound);
  return {
    next,
    below,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError("pick() needs a non-empty list");
      return items[below(items.length)] as T;
    },
    chance: (probability: number) => next() < probability,
  };
}
