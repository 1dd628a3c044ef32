import type { Registry } from "@trestle/registry";

/** What decides whether a catalog entry can be served now: the registered services, and names known to come. */
export interface ServabilityDeps {
  registry: Pick<Registry, "services">;
  /**
   * Service names that serve without registering, or that will register on their own: the configuration's
   * `services` (a static address or protocol) and the built-ins while they start.
   */
  expectedServiceNames: () => Iterable<string>;
}

/**
 * Why a tool or resource of service `type` cannot be served yet, as sentences for the answer's `warnings`: no
 * service of that name is registered (the common slip: a misspelt `type`), or every instance of it is down. The
 * entry is stored all the same (a service may register later); the warning says so now rather than at call time.
 */
export function servabilityWarnings(
  deps: ServabilityDeps,
  what: "tool" | "resource",
  name: string,
  type: string,
): string[] {
  const instances = deps.registry.services.list().filter((s) => s.target.serviceName === type);
  if (instances.length === 0) {
    if ([...deps.expectedServiceNames()].includes(type)) return [];
    const known = [...new Set(deps.registry.services.list().map((s) => s.target.serviceName))].sort();
    return [
      `No capability service named '${type}' is registered, so ${what} '${name}' cannot be served until one registers` +
        (known.length > 0 ? ` (registered: ${known.map((k) => `'${k}'`).join(", ")})` : ""),
    ];
  }
  if (instances.every((s) => s.health === "down")) {
    return [
      `Every instance of service '${type}' is down, so ${what} '${name}' cannot be served until one is up`,
    ];
  }
  return [];
}
