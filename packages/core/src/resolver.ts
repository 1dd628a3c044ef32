import type { ServiceTarget, ServiceType } from "./service-target.js";

/**
 * Chooses the service instance that serves a call. The registry's implementation is health-aware: it prefers
 * healthy instances, spreads load among equals and never returns one that is down or deregistered.
 */
export interface ServiceResolver {
  /** A service named `serviceName` offering `serviceType` (or `multi-capability`), or `undefined`. */
  resolve(serviceName: string, serviceType: ServiceType): Promise<ServiceTarget | undefined>;
  /**
   * The answer `resolve` would give, synchronously, for a resolver that answers from memory; `undefined` when it
   * found none or cannot tell without waiting, and then the caller asks `resolve`. Optional. Callers on the hot
   * path (the bridge, for every tool call) try it first: a resolution then costs no promise and no microtask.
   * A target it returns counts as chosen, exactly as one `resolve` returns does (round robin, half-open trials).
   */
  resolveNow?(serviceName: string, serviceType: ServiceType): ServiceTarget | undefined;
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
