/**
 * A bounded map whose entries expire: least recently used entries leave first when it is full, expired ones
 * when they are read. One per owner (a verifier, an exchanger); nothing module-wide.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = Math.max(0, Math.floor(maxEntries));
  }

  /** The value under `key` if it has not expired at `now` (ms). */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-insert so that Map order stays least-recently-used first.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (ms); does nothing when that is not after `now` or the cache holds nothing. */
  set(key: string, value: V, expiresAt: number, now: number): void {
    if (this.#maxEntries === 0 || expiresAt <= now) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt });
  }

  /** How many entries are held (expired ones included until read or evicted). */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Runs at most one `work` per key at a time: callers that ask while one is in flight share its promise.
 */
export class SingleFlight<V> {
  readonly #inFlight = new Map<string, Promise<V>>();

  run(key: string, work: () => Promise<V>): Promise<V> {
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return pending;
    const started = work().finally(() => {
      this.#inFlight.delete(key);
    });
    this.#inFlight.set(key, started);
    return started;
  }
}
