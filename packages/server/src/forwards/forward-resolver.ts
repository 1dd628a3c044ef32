import type { ExplainingResolver } from "@trestle/bridge";
import type { ServiceTarget, ServiceType, TrestleError } from "@trestle/core";
import type { ForwardDirectory } from "./forward-directory.js";

/** A resolver that answers forwards' service names itself and asks `base` for every other one. */
export interface ForwardingResolver extends ExplainingResolver {
  explain(serviceName: string, serviceType: ServiceType): TrestleError | undefined;
  explainCodeExecution(engineType: string, language: string): TrestleError | undefined;
}

/**
 * Composes `base` (the registry's health-aware resolver) with the forwards of `directory`: a forward's service
 * name resolves to its target; every other name, code execution, and the explanations of a failed resolution
 * are `base`'s own.
 *
 * @example
 * ```ts
 * const resolver = resolveForwardsFirst(directory, registry.resolver);
 * await resolver.resolve("forward.everything", "tool-invoker"); // the forward's target
 * ```
 */
export function resolveForwardsFirst(
  directory: Pick<ForwardDirectory, "targetOf">,
  base: ExplainingResolver,
): ForwardingResolver {
  return {
    async resolve(serviceName, serviceType): Promise<ServiceTarget | undefined> {
      return directory.targetOf(serviceName) ?? base.resolve(serviceName, serviceType);
    },
    resolveNow: (serviceName, serviceType) =>
      directory.targetOf(serviceName) ?? base.resolveNow?.(serviceName, serviceType),
    resolveCodeExecution: (engineType, language) => base.resolveCodeExecution(engineType, language),
    explain: (serviceName, serviceType) => base.explain?.(serviceName, serviceType),
    explainCodeExecution: (engineType, language) => base.explainCodeExecution?.(engineType, language),
  };
}
