/**
 * Freezes a JSON-like value and everything in it. The in-memory views hand out their own objects on every
 * read (no copies on the call path); freezing makes a caller's accidental mutation throw instead of
 * corrupting the view.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
