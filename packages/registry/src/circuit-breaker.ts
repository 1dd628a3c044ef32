import type { Clock } from "./clock.js";

/** The state of one target's circuit, as {@link CircuitBreaker.state} reports it. */
export type CircuitState = "closed" | "open" | "half-open";

interface Circuit {
  consecutiveFailures: number;
  /** While in the future, the circuit is open. */
  openUntil: number;
  /** The circuit opened and its cool-down passed: one trial call decides. */
  halfOpen: boolean;
  /** When the trial call was handed out; another may go after a cool-down without an answer. */
  trialSince?: number;
}

/** What a circuit looks like now, to explain why a target is out of rotation. */
export interface CircuitSnapshot {
  state: CircuitState;
  /** Service failures in a row so far (0 for a closed circuit without failures). */
  consecutiveFailures: number;
  /** While open: when (ms since the epoch) the cool-down ends and a trial call may go. */
  retryAt?: number;
  /** While half-open: the trial call is out and no other may go before it answers or its cool-down passes. */
  trialInFlight?: boolean;
}

/** Options for {@link createCircuitBreaker}. */
export interface CircuitBreakerOptions {
  clock: Clock;
  /** Consecutive service failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit keeps its target out of rotation before one trial call. */
  cooldownMs: number;
  /** Told when a circuit opens (for logs and an early health probe). */
  onOpen?(id: string, consecutiveFailures: number): void;
}

/**
 * Circuits by target id: after `failureThreshold` consecutive service failures a target is skipped for
 * `cooldownMs`; then one trial call goes through, and its outcome closes the circuit or opens it again.
 * Kept in memory per process: each replica judges the calls it made.
 */
export interface CircuitBreaker {
  /** True when a call may go to `id` now. */
  allows(id: string): boolean;
  /** Notes that a call goes to `id` (the trial call of a half-open circuit). */
  admitted(id: string): void;
  /** Records the outcome of a call to `id`. */
  record(id: string, serviceFailure: boolean): void;
  state(id: string): CircuitState;
  /** The state of `id`'s circuit with its failure count and, when open, when a trial call may go. */
  inspect(id: string): CircuitSnapshot;
  forget(id: string): void;
}

/** Creates a {@link CircuitBreaker}. */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const circuits = new Map<string, Circuit>();
  const { clock } = options;

  function current(id: string): Circuit | undefined {
    const circuit = circuits.get(id);
    if (circuit && circuit.openUntil > 0 && circuit.openUntil <= clock.now() && !circuit.halfOpen) {
      circuit.halfOpen = true;
      delete circuit.trialSince;
    }
    return circuit;
  }

  return {
    allows(id) {
      const circuit = current(id);
      if (!circuit) return true;
      if (circuit.halfOpen) {
        return circuit.trialSince === undefined || clock.now() - circuit.trialSince >= options.cooldownMs;
      }
      return circuit.openUntil <= clock.now();
    },
    admitted(id) {
      const circuit = current(id);
      if (circuit?.halfOpen) circuit.trialSince = clock.now();
    },
    record(id, serviceFailure) {
      if (!serviceFailure) {
        circuits.delete(id);
        return;
      }
      const circuit = current(id) ?? { consecutiveFailures: 0, openUntil: 0, halfOpen: false };
      circuit.consecutiveFailures++;
      if (circuit.halfOpen || circuit.consecutiveFailures >= options.failureThreshold) {
        const wasOpen = circuit.openUntil > clock.now();
        circuit.openUntil = clock.now() + options.cooldownMs;
        circuit.halfOpen = false;
        delete circuit.trialSince;
        if (!wasOpen) options.onOpen?.(id, circuit.consecutiveFailures);
      }
      circuits.set(id, circuit);
    },
    state(id) {
      const circuit = current(id);
      if (!circuit || circuit.openUntil === 0) return "closed";
      return circuit.halfOpen ? "half-open" : "open";
    },
    inspect(id) {
      const circuit = current(id);
      if (!circuit) return { state: "closed", consecutiveFailures: 0 };
      if (circuit.openUntil === 0)
        return { state: "closed", consecutiveFailures: circuit.consecutiveFailures };
      if (!circuit.halfOpen) {
        return {
          state: "open",
          consecutiveFailures: circuit.consecutiveFailures,
          retryAt: circuit.openUntil,
        };
      }
      const trialInFlight =
        circuit.trialSince !== undefined && clock.now() - circuit.trialSince < options.cooldownMs;
      return trialInFlight
        ? {
            state: "half-open",
            consecutiveFailures: circuit.consecutiveFailures,
            trialInFlight,
            retryAt: (circuit.trialSince as number) + options.cooldownMs,
          }
        : { state: "half-open", consecutiveFailures: circuit.consecutiveFailures, trialInFlight };
    },
    forget(id) {
      circuits.delete(id);
    },
  };
}
