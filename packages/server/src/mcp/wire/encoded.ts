/**
 * What every encoder under `wire/` returns, and the small helpers they share. The common path allocates nothing:
 * an encoder that changes nothing returns its input and {@link NO_NOTES}.
 */
import type { TranslationNote } from "@trestle/core";
import type { WireObject } from "./types.js";

/** An encoded value and what its encoding did not carry over unchanged (empty when nothing was lost). */
export interface Encoded<T> {
  value: T;
  notes: readonly TranslationNote[];
}

/** The notes of every encoding that lost nothing: one frozen array, shared. */
export const NO_NOTES: readonly TranslationNote[] = Object.freeze([]);

/** Adds a note to `notes`. */
export function note(
  notes: TranslationNote[],
  action: TranslationNote["action"],
  what: string,
  detail: string,
): void {
  notes.push({ action, what, detail });
}

/** `value` with `notes`, or with the shared {@link NO_NOTES} when there are none. */
export function finish<T>(value: T, notes: TranslationNote[]): Encoded<T> {
  return { value, notes: notes.length === 0 ? NO_NOTES : notes };
}

/**
 * A shallow copy of `source` without `keys`. Typed as `source` because every caller drops optional fields only;
 * the copy is a plain object, which is what a generic copy cannot prove to the type checker.
 */
export function omit<T extends object>(source: T, keys: readonly string[]): T {
  const copy: WireObject = {};
  for (const [key, value] of Object.entries(source)) if (!keys.includes(key)) copy[key] = value;
  return copy as T;
}

/** Whether `value` is a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is WireObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Maps `items` through `encode`, returning the same array when no item changed (the common case), so a list
 * that needs nothing costs no allocation.
 */
export function mapSame<T>(items: readonly T[], encode: (item: T, index: number) => T): T[] {
  let out: T[] | undefined;
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as T;
    const encoded = encode(item, index);
    if (encoded !== item && !out) out = items.slice(0, index);
    out?.push(encoded);
  }
  return out ?? (items as T[]);
}
