/**
 * How many things one principal may hold open at once on this process (requests awaiting answers, streams): a
 * count per principal name, taken when one opens and given back when it closes. Bounded work per principal, so
 * one token cannot hold every connection, stream or call slot of the router.
 */
export interface PrincipalBudget {
  /**
   * Takes one unit of `principal`'s budget: the function that gives it back (idempotent), or `undefined` when the
   * principal holds as many as it may.
   */
  take(principal: string): (() => void) | undefined;
  /** What `principal` holds now. */
  held(principal: string): number;
  /** The most one principal may hold. */
  readonly limit: number;
}

/** Creates a budget of `limit` units per principal. Principals holding nothing take no memory. */
export function createPrincipalBudget(limit: number): PrincipalBudget {
  const held = new Map<string, number>();
  return {
    limit,
    take(principal) {
      const count = held.get(principal) ?? 0;
      if (count >= limit) return undefined;
      held.set(principal, count + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        const now = (held.get(principal) ?? 1) - 1;
        if (now <= 0) held.delete(principal);
        else held.set(principal, now);
      };
    },
    held(principal) {
      return held.get(principal) ?? 0;
    },
  };
}
