import { Code, type ServiceTarget, type ServiceType, TrestleError } from "@trestle/core";
import type { ServiceResolver } from "@trestle/core/routing";

/**
 * A {@link ServiceResolver} that can also say why it found no instance, as the registry's health-aware resolver
 * does. Both methods are optional: the bridge works with any `ServiceResolver`, and without them a failed
 * resolution reads "not registered".
 */
export interface ExplainingResolver extends ServiceResolver {
  /**
   * Why `resolve(serviceName, serviceType)` found nothing: `undefined` when no service of that name is
   * registered at all, else the error to report (typically `Unavailable`, naming what keeps its instances out of
   * rotation).
   */
  explain?(serviceName: string, serviceType: ServiceType): TrestleError | undefined;
  /** The same for `resolveCodeExecution(engineType, language)`. */
  explainCodeExecution?(engineType: string, language: string): TrestleError | undefined;
}

async function resolveOrFail<T>(lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    throw TrestleError.from(error, Code.Unavailable);
  }
}

/** The resolver's explanation, when it has one; a resolver that fails to explain is treated as having none. */
function explanation(explain: () => TrestleError | undefined): TrestleError | undefined {
  try {
    const error = explain();
    return error instanceof TrestleError ? error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The service named `serviceName` offering `serviceType` when the resolver can tell at once
 * ({@link ServiceResolver.resolveNow}); `undefined` otherwise, and then {@link resolveToolService} or
 * {@link resolveResourceService} decides. The common case of every tool call and resource read, without a promise.
 */
export function resolveServiceNow(
  resolver: ExplainingResolver,
  serviceName: string,
  serviceType: ServiceType,
): ServiceTarget | undefined {
  if (resolver.resolveNow === undefined) return undefined;
  try {
    return resolver.resolveNow(serviceName, serviceType);
  } catch {
    // The asynchronous path asks again and reports the failure as `resolve`'s.
    return undefined;
  }
}

/**
 * The service that executes tools of `toolType`: a `tool-invoker` (or `multi-capability`, which the resolver
 * matches too) of that name, else a `code-execution-engine` of that name, since engines may offer tools.
 *
 * @throws TrestleError `Unavailable` (or the code the resolver explains with) when services of that name are
 * registered but none can take the call, saying why (down, circuit open, …); `NotFound` naming the type when
 * no service of that name is registered.
 */
export async function resolveToolService(
  resolver: ExplainingResolver,
  toolType: string,
): Promise<ServiceTarget> {
  // The common case, one lookup that finds an invoker, awaits one promise (this runs on every tool call).
  const target =
    (await resolveOrFail(() => resolver.resolve(toolType, "tool-invoker"))) ??
    (await resolveOrFail(() => resolver.resolve(toolType, "code-execution-engine")));
  if (target) return target;
  throw (
    explanation(() => resolver.explain?.(toolType, "tool-invoker")) ??
    explanation(() => resolver.explain?.(toolType, "code-execution-engine")) ??
    new TrestleError(
      `No capability service is registered for tool type '${toolType}' (no tool-invoker, multi-capability or code-execution-engine service of that name is available)`,
      Code.NotFound,
    )
  );
}

/**
 * The service that provides resources of `resourceType` (a `resource-provider` or `multi-capability`).
 *
 * @throws TrestleError `Unavailable` saying why when such services are registered but none can take the call;
 * `NotFound` naming the type when none is registered.
 */
export async function resolveResourceService(
  resolver: ExplainingResolver,
  resourceType: string,
): Promise<ServiceTarget> {
  const target = await resolveOrFail(() => resolver.resolve(resourceType, "resource-provider"));
  if (target) return target;
  throw (
    explanation(() => resolver.explain?.(resourceType, "resource-provider")) ??
    new TrestleError(
      `No capability service is registered for resource type '${resourceType}' (no resource-provider or multi-capability service of that name is available)`,
      Code.NotFound,
    )
  );
}

/**
 * The code execution engine of `engineType` that runs `language`.
 *
 * @throws TrestleError `Unavailable` saying why when such engines are registered but none can take the call;
 * `NotFound` naming both when none is registered.
 */
export async function resolveEngine(
  resolver: ExplainingResolver,
  engineType: string,
  language: string,
): Promise<ServiceTarget> {
  const target = await resolveOrFail(() => resolver.resolveCodeExecution(engineType, language));
  if (target) return target;
  throw (
    explanation(() => resolver.explainCodeExecution?.(engineType, language)) ??
    new TrestleError(
      `No code execution engine is registered for engine type '${engineType}' and language '${language}'`,
      Code.NotFound,
    )
  );
}
