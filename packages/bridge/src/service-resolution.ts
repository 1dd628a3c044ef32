import { Code, type ServiceResolver, type ServiceTarget, TrestleError } from "@trestle/core";

async function resolveOrFail<T>(lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    throw TrestleError.from(error, Code.Unavailable);
  }
}

/**
 * The service that executes tools of `toolType`: a `tool-invoker` (or `multi-capability`, which the resolver
 * matches too) of that name, else a `code-execution-engine` of that name, since engines may offer tools.
 *
 * @throws TrestleError `NotFound` naming the type when no service of that name is available.
 */
export async function resolveToolService(
  resolver: ServiceResolver,
  toolType: string,
): Promise<ServiceTarget> {
  const target = await resolveOrFail(async () => {
    return (
      (await resolver.resolve(toolType, "tool-invoker")) ??
      (await resolver.resolve(toolType, "code-execution-engine"))
    );
  });
  if (target) return target;
  throw new TrestleError(
    `No capability service is registered for tool type '${toolType}' (no tool-invoker, multi-capability or code-execution-engine service of that name is available)`,
    Code.NotFound,
  );
}

/**
 * The service that provides resources of `resourceType` (a `resource-provider` or `multi-capability`).
 *
 * @throws TrestleError `NotFound` naming the type when no service of that name is available.
 */
export async function resolveResourceService(
  resolver: ServiceResolver,
  resourceType: string,
): Promise<ServiceTarget> {
  const target = await resolveOrFail(() => resolver.resolve(resourceType, "resource-provider"));
  if (target) return target;
  throw new TrestleError(
    `No capability service is registered for resource type '${resourceType}' (no resource-provider or multi-capability service of that name is available)`,
    Code.NotFound,
  );
}

/**
 * The code execution engine of `engineType` that runs `language`.
 *
 * @throws TrestleError `NotFound` naming both when no such engine is available.
 */
export async function resolveEngine(
  resolver: ServiceResolver,
  engineType: string,
  language: string,
): Promise<ServiceTarget> {
  const target = await resolveOrFail(() => resolver.resolveCodeExecution(engineType, language));
  if (target) return target;
  throw new TrestleError(
    `No code execution engine is registered for engine type '${engineType}' and language '${language}'`,
    Code.NotFound,
  );
}
