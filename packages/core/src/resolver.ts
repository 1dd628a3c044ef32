import type { ServiceTarget, ServiceType } from "./service-target.js";

/**
 * Chooses the service instance that serves a call. The registry's implementation is health-aware: it prefers
 * healthy instances, spreads load among equals and never returns one that is down or deregistered.
 */
export interface ServiceResolver {
  /** A service named `serviceName` offering `serviceType` (or `multi-capability`), or `undefined`. */
  resolve(serviceName: string, serviceType: ServiceType): Promise<ServiceTarget | undefined>;
  /** A code execution engine of `engineType` that runs `language`, or `undefined`. */
  resolveCodeExecution(engineType: string, language: string): Promise<ServiceTarget | undefined>;
}

/**
 * Optional feedback from callers to a resolver: the outcome of each call, so that a resolver can open a
 * circuit on repeated transport failures and balance by calls in flight.
 */
export interface CallOutcomeListener {
  /** A call to `target` started. */
  callStarted?(target: ServiceTarget): void;
  /** A call to `target` ended; `serviceFailure` is true when the service itself could not serve it. */
  callEnded?(target: ServiceTarget, serviceFailure: boolean): void;
}
