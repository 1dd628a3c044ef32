import type { CallOutcomeListener, ServiceResolver, ServiceTarget, ServiceType } from "@trestle/core";
import type { CircuitBreaker, CircuitState } from "./circuit-breaker.js";
import type { Clock } from "./clock.js";
import type { ServiceView } from "./service-view.js";

/** The registry's resolver: health-aware, load-spreading, with a circuit per target. */
export interface HealthAwareResolver extends ServiceResolver, CallOutcomeListener {
  /** Calls in flight to a target, as reported through {@link CallOutcomeListener}. */
  inFlight(id: string): number;
  /** The circuit of a target. */
  circuitState(id: string): CircuitState;
  /** Drops what the resolver keeps about a target that went away. */
  forget(id: string): void;
  /** Closes `id`'s circuit (the service proved it is back), keeping its in-flight count. */
  closeCircuit(id: string): void;
}

/** Options for {@link createServiceResolver}. */
export interface ServiceResolverOptions {
  view: ServiceView;
  circuits: CircuitBreaker;
  clock: Clock;
  /** How long a newly registered (pending) service may be routed to before a probe said it is healthy. */
  registrationGraceMs: number;
}

/** Which registered service types serve a request for `serviceType`. */
const SERVED_BY: Record<ServiceType, readonly ServiceType[]> = {
  "tool-invoker": ["tool-invoker", "multi-capability"],
  "resource-provider": ["resource-provider", "multi-capability"],
  "multi-capability": ["multi-capability"],
  "code-execution-engine": ["code-execution-engine"],
};

/**
 * Creates the health-aware {@link ServiceResolver}. Among all services that match (contract §5), it prefers
 * healthy ones, then pending ones still within their grace period; among equals it picks the one with the
 * fewest calls in flight, round robin on ties; it skips a target whose circuit is open; it never returns a
 * service that is down, unhealthy or deregistered. Everything comes from memory: no database on the call path.
 */
export function createServiceResolver(options: ServiceResolverOptions): HealthAwareResolver {
  const { view, circuits, clock } = options;
  const inFlight = new Map<string, number>();
  const turns = new Map<string, number>();

  function choose(
    routeKey: string,
    candidateSets: readonly (ReadonlySet<string> | undefined)[],
  ): ServiceTarget | undefined {
    const now = clock.now();
    let healthy: string[] = [];
    const pending: string[] = [];
    for (const ids of candidateSets) {
      if (!ids) continue;
      for (const id of ids) {
        const service = view.get(id);
        if (!service || !circuits.allows(id)) continue;
        if (service.health === "healthy") healthy.push(id);
        else if (
          service.health === "pending" &&
          now - service.healthChangedAt < options.registrationGraceMs
        ) {
          pending.push(id);
        }
      }
    }
    if (healthy.length === 0) healthy = pending;
    if (healthy.length === 0) return undefined;
    let least = Number.POSITIVE_INFINITY;
    let ties: string[] = [];
    for (const id of healthy) {
      const load = inFlight.get(id) ?? 0;
      if (load < least) {
        least = load;
        ties = [id];
      } else if (load === least) {
        ties.push(id);
      }
    }
    const turn = turns.get(routeKey) ?? 0;
    turns.set(routeKey, (turn + 1) % 1_000_000_007);
    const id = ties[turn % ties.length] as string;
    circuits.admitted(id);
    return view.get(id)?.target;
  }

  return {
    async resolve(serviceName, serviceType) {
      const served = SERVED_BY[serviceType] ?? [];
      return choose(
        `${serviceType}\u0000${serviceName}`,
        served.map((type) => view.idsFor(type, serviceName)),
      );
    },
    async resolveCodeExecution(engineType, language) {
      return choose(`engine\u0000${engineType.toLowerCase()}\u0000${language.toLowerCase()}`, [
        view.idsForEngine(engineType, language),
      ]);
    },
    callStarted(target) {
      inFlight.set(target.id, (inFlight.get(target.id) ?? 0) + 1);
    },
    callEnded(target, serviceFailure) {
      const count = (inFlight.get(target.id) ?? 0) - 1;
      if (count > 0) inFlight.set(target.id, count);
      else inFlight.delete(target.id);
      // Outcomes of a target that was deregistered meanwhile must not recreate its state.
      if (view.get(target.id)) circuits.record(target.id, serviceFailure);
    },
    inFlight: (id) => inFlight.get(id) ?? 0,
    circuitState: (id) => circuits.state(id),
    closeCircuit(id) {
      circuits.forget(id);
    },
    forget(id) {
      inFlight.delete(id);
      circuits.forget(id);
    },
  };
}
