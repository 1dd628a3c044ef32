import { Code, type ServiceTarget, type ServiceType, TrestleError } from "@trestle/core";
import type { CallOutcomeListener, ServiceResolver } from "@trestle/core/routing";
import type { CircuitBreaker, CircuitState } from "./circuit-breaker.js";
import type { Clock } from "./clock.js";
import type { ServiceView } from "./service-view.js";

/** The registry's resolver: health-aware, load-spreading, with a circuit per target. */
export interface HealthAwareResolver extends ServiceResolver, CallOutcomeListener {
  /** Always answers: everything comes from memory ({@link ServiceResolver.resolveNow}). */
  resolveNow(serviceName: string, serviceType: ServiceType): ServiceTarget | undefined;
  /** Calls in flight to a target, as reported through {@link CallOutcomeListener}. */
  inFlight(id: string): number;
  /** The circuit of a target. */
  circuitState(id: string): CircuitState;
  /** Drops what the resolver keeps about a target that went away. */
  forget(id: string): void;
  /** Closes `id`'s circuit (the service proved it is back), keeping its in-flight count. */
  closeCircuit(id: string): void;
  /**
   * Why {@link ServiceResolver.resolve} finds no instance of `serviceName` for `serviceType`: `undefined` when
   * none is registered at all (the name is unknown), else a `TrestleError` `Unavailable` naming the service and
   * what keeps its instances out of rotation (down or unhealthy with the last health message, not yet confirmed
   * healthy, or an open circuit with when it lets a call through again).
   */
  explain(serviceName: string, serviceType: ServiceType): TrestleError | undefined;
  /** The same as {@link explain}, for {@link ServiceResolver.resolveCodeExecution}. */
  explainCodeExecution(engineType: string, language: string): TrestleError | undefined;
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

/** Why one instance is out of rotation. */
type Exclusion =
  | { kind: "down" | "unhealthy"; message?: string }
  | { kind: "unconfirmed" }
  | { kind: "circuit-open"; failures: number; retryAt: number }
  | { kind: "trial-in-flight"; retryAt?: number }
  | { kind: "available" };

const MAX_HEALTH_MESSAGE = 200;

function clip(text: string): string {
  return text.length > MAX_HEALTH_MESSAGE ? `${text.slice(0, MAX_HEALTH_MESSAGE)}…` : text;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** "its instance", "its 3 instances", "2 of its 3 instances", with the verb that agrees with it. */
function instances(count: number, total: number): { noun: string; verb: string } {
  if (total === 1) return { noun: "its instance", verb: "is" };
  const verb = plural(count, "is", "are");
  return count === total
    ? { noun: `its ${total} instances`, verb }
    : { noun: `${count} of its ${total} instances`, verb };
}

function retryIn(retryAt: number, now: number): string {
  return `retry after ~${Math.max(1, Math.ceil((retryAt - now) / 1000))} s`;
}

/** One sentence naming the subject and every reason its instances are out of rotation. */
function describeExclusions(subject: string, exclusions: readonly Exclusion[], now: number): string {
  const total = exclusions.length;
  const of = <K extends Exclusion["kind"]>(kind: K) =>
    exclusions.filter((e): e is Extract<Exclusion, { kind: K }> => e.kind === kind);
  const reasons: string[] = [];
  for (const kind of ["down", "unhealthy"] as const) {
    const found = of(kind);
    if (found.length === 0) continue;
    const message = found.find((e) => e.message)?.message;
    const { noun, verb } = instances(found.length, total);
    reasons.push(`${noun} ${verb} ${kind}${message ? ` (${clip(message)})` : ""}`);
  }
  const unconfirmed = of("unconfirmed");
  if (unconfirmed.length > 0) {
    const { noun, verb } = instances(unconfirmed.length, total);
    reasons.push(`${noun} ${verb} not confirmed healthy: no health check passed since it registered`);
  }
  const open = of("circuit-open");
  if (open.length > 0) {
    const soonest = Math.min(...open.map((e) => e.retryAt));
    const failures = Math.max(...open.map((e) => e.failures));
    const circuits =
      total === 1 ? "its circuit is" : `the circuits of ${instances(open.length, total).noun} are`;
    reasons.push(
      `${circuits} open after ${failures} failed ${plural(failures, "call")} in a row (${retryIn(soonest, now)})`,
    );
  }
  const trials = of("trial-in-flight");
  if (trials.length > 0) {
    const at = trials.find((e) => e.retryAt !== undefined)?.retryAt;
    const { noun, verb } = instances(trials.length, total);
    reasons.push(
      `${noun} ${verb} on trial after failed calls, a test call is under way${at === undefined ? "" : ` (${retryIn(at, now)})`}`,
    );
  }
  if (reasons.length === 0) reasons.push("no instance was free at the moment; try again");
  return `${subject} is unavailable: ${reasons.join("; ")}`;
}

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

  /**
   * The instance to call among `candidateSets`: the healthy ones (else the pending ones within their grace period),
   * the least loaded of those, round robin on ties per `routeKey()`. One pass, and no array unless several tie:
   * this runs on every call.
   */
  function choose(
    routeKey: () => string,
    candidateSets: readonly (ReadonlySet<string> | undefined)[],
  ): ServiceTarget | undefined {
    const now = clock.now();
    // 2: healthy, 1: pending within its grace period; a healthy instance always wins over a pending one.
    let bestRank = 0;
    let least = Number.POSITIVE_INFINITY;
    let first: string | undefined;
    let ties: string[] | undefined;
    for (const ids of candidateSets) {
      if (!ids) continue;
      for (const id of ids) {
        const service = view.get(id);
        if (!service || !circuits.allows(id)) continue;
        const rank =
          service.health === "healthy"
            ? 2
            : service.health === "pending" && now - service.healthChangedAt < options.registrationGraceMs
              ? 1
              : 0;
        if (rank === 0 || rank < bestRank) continue;
        const load = inFlight.get(id) ?? 0;
        if (rank > bestRank || load < least) {
          bestRank = rank;
          least = load;
          first = id;
          ties = undefined;
        } else if (load === least) {
          if (ties) ties.push(id);
          else ties = [first as string, id];
        }
      }
    }
    if (first === undefined) return undefined;
    let id = first;
    if (ties) {
      const key = routeKey();
      const turn = turns.get(key) ?? 0;
      turns.set(key, (turn + 1) % 1_000_000_007);
      id = ties[turn % ties.length] as string;
    }
    circuits.admitted(id);
    return view.get(id)?.target;
  }

  function exclusionOf(id: string, now: number): Exclusion | undefined {
    const service = view.get(id);
    if (!service) return undefined;
    if (service.health === "down" || service.health === "unhealthy") {
      return service.healthMessage === undefined
        ? { kind: service.health }
        : { kind: service.health, message: service.healthMessage };
    }
    const circuit = circuits.inspect(id);
    if (circuit.state === "open" && circuit.retryAt !== undefined) {
      return { kind: "circuit-open", failures: circuit.consecutiveFailures, retryAt: circuit.retryAt };
    }
    if (circuit.state === "half-open" && circuit.trialInFlight) {
      return circuit.retryAt === undefined
        ? { kind: "trial-in-flight" }
        : { kind: "trial-in-flight", retryAt: circuit.retryAt };
    }
    if (service.health === "pending" && now - service.healthChangedAt >= options.registrationGraceMs) {
      return { kind: "unconfirmed" };
    }
    return { kind: "available" };
  }

  function explainFor(
    subject: string,
    candidateSets: readonly (ReadonlySet<string> | undefined)[],
  ): TrestleError | undefined {
    const now = clock.now();
    const exclusions: Exclusion[] = [];
    for (const ids of candidateSets) {
      if (!ids) continue;
      for (const id of ids) {
        const exclusion = exclusionOf(id, now);
        if (exclusion) exclusions.push(exclusion);
      }
    }
    if (exclusions.length === 0) return undefined;
    return new TrestleError(describeExclusions(subject, exclusions, now), Code.Unavailable);
  }

  const servedSets = (serviceName: string, serviceType: ServiceType) =>
    (SERVED_BY[serviceType] ?? []).map((type) => view.idsFor(type, serviceName));
  const resolveNow = (serviceName: string, serviceType: ServiceType) =>
    choose(() => `${serviceType}\u0000${serviceName}`, servedSets(serviceName, serviceType));

  return {
    resolveNow,
    async resolve(serviceName, serviceType) {
      return resolveNow(serviceName, serviceType);
    },
    async resolveCodeExecution(engineType, language) {
      return choose(
        () => `engine\u0000${engineType.toLowerCase()}\u0000${language.toLowerCase()}`,
        [view.idsForEngine(engineType, language)],
      );
    },
    explain(serviceName, serviceType) {
      return explainFor(`The capability service '${serviceName}'`, servedSets(serviceName, serviceType));
    },
    explainCodeExecution(engineType, language) {
      return explainFor(`The code execution engine '${engineType}' for '${language}'`, [
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
