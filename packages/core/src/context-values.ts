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

/**
 * A call's values as two short arrays searched in order. A call sets a handful of keys (each made once, at module
 * level), so a scan by identity is quicker than a `Map`, whose first insertion allocates its table: a bag is made
 * for every call.
 */
class ContextValuesBag implements ContextValues {
  readonly #ids: symbol[] = [];
  readonly #values: unknown[] = [];

  get<T>(key: ContextKey<T>): T {
    const index = this.#ids.indexOf(key.id);
    return index === -1 ? key.defaultValue : (this.#values[index] as T);
  }

  set<T>(key: ContextKey<T>, value: T): this {
    const index = this.#ids.indexOf(key.id);
    if (index === -1) {
      this.#ids.push(key.id);
      this.#values.push(value);
    } else {
      this.#values[index] = value;
    }
    return this;
  }

  delete(key: ContextKey<unknown>): this {
    const index = this.#ids.indexOf(key.id);
    if (index !== -1) {
      this.#ids.splice(index, 1);
      this.#values.splice(index, 1);
    }
    return this;
  }
}

/** Makes an empty bag of context values: a fresh one per call. */
export function createContextValues(): ContextValues {
  return new ContextValuesBag();
}
