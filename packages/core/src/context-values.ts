/**
 * Typed per-call values, as connect-es has them: a key made once (at module level, as a constant) and a
 * fresh bag per call, so interceptors share what they know about a call without globals.
 */

/** A typed key into {@link ContextValues}. Compare keys by identity. */
export interface ContextKey<T> {
  readonly id: symbol;
  readonly defaultValue: T;
}

/** The values of one call, by key. A key never set reads as its default. */
export interface ContextValues {
  /** The value for `key`, or its default when none was set. */
  get<T>(key: ContextKey<T>): T;
  /** Sets the value for `key`. */
  set<T>(key: ContextKey<T>, value: T): this;
  /** Removes the value for `key`: it reads as its default again. */
  delete(key: ContextKey<unknown>): this;
}

/**
 * Makes a context key with a default value.
 *
 * @example
 * ```ts
 * const kUser = createContextKey<string | undefined>(undefined, { description: "the calling user" });
 * const values = createContextValues().set(kUser, "alice");
 * ```
 */
export function createContextKey<T>(defaultValue: T, options: { description?: string } = {}): ContextKey<T> {
  return { id: Symbol(options.description), defaultValue };
}

/** Makes an empty bag of context values: a fresh one per call. */
export function createContextValues(): ContextValues {
  const values = new Map<symbol, unknown>();
  return {
    get<T>(key: ContextKey<T>): T {
      return values.has(key.id) ? (values.get(key.id) as T) : key.defaultValue;
    },
    set<T>(key: ContextKey<T>, value: T) {
      values.set(key.id, value);
      return this;
    },
    delete(key) {
      values.delete(key.id);
      return this;
    },
  };
}
