import {
  Code,
  type ResourceContents,
  type ResourceRead,
  type ResourceReference,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import type { ResourcePayload } from "@trestle/core/catalog";
import type { BridgeDependencies, CallContext } from "./call-context.js";
import { callOptionsFor } from "./call-context.js";
import { describeFailure, safeError } from "./failure.js";
import { applyResourceProvisioning, provisionOnService } from "./provisioning.js";
import { resolveResourceService, resolveServiceNow } from "./service-resolution.js";
import { isUriTemplate, matchUriTemplate } from "./uri-template.js";

/** Routes `resources/read` to capability services and provisions resources on them. */
export interface ResourceBridge {
  /**
   * Reads `uri` (the resource's location, or a concrete URI matching its URI template) from the service that
   * provides resources of the resource's type, and returns the contents as the transport decoded them.
   *
   * @throws TrestleError `NotFound` when no service provides the type; `InvalidArgument` when `uri` does not
   * match the resource's URI template; the service's code otherwise, with a message naming the service.
   */
  read(resource: ResourceReference, uri: string, context?: CallContext): Promise<ResourceContents[]>;
  /**
   * Provisions the resource's configuration and secrets on its service and returns a copy of the resource with
   * the returned URIs.
   *
   * @throws TrestleError `NotFound` when no service provides the type; the service's code otherwise. The
   * payloads never appear in the error.
   */
  provision(payload: ResourcePayload, context?: CallContext): Promise<ResourceReference>;
}

/**
 * The read of `uri` on `resource`: its `params` are the resource's params plus the variables the URI binds in
 * the resource's URI template (those win, since they are this call's values).
 *
 * @throws TrestleError `InvalidArgument` when the resource's location is a template that `uri` does not match.
 */
export function resourceRead(resource: ResourceReference, uri: string): ResourceRead {
  const params: Record<string, string> = {};
  for (const param of resource.params ?? []) params[param.name] = param.value;
  if (isUriTemplate(resource.location)) {
    const variables = matchUriTemplate(resource.location, uri);
    if (!variables) {
      throw new TrestleError(
        `The URI '${uri}' does not match the template '${resource.location}' of resource '${resource.name}'`,
        Code.InvalidArgument,
      );
    }
    Object.assign(params, variables);
  }
  return { resource, uri, params };
}

/**
 * Creates the {@link ResourceBridge}.
 *
 * @example
 * ```ts
 * const resources = createResourceBridge({ resolver, transports, events: hub });
 * const contents = await resources.read(reference, "weather://oslo/today", { requestId: "3" });
 * ```
 */
export function createResourceBridge(deps: BridgeDependencies): ResourceBridge {
  return {
    async read(resource, uri, context) {
      const read = resourceRead(resource, uri);
      const target: ServiceTarget =
        resolveServiceNow(deps.resolver, resource.type, "resource-provider") ??
        (await resolveResourceService(deps.resolver, resource.type));
      const transport = deps.transports.transportFor(target);
      try {
        const result = await transport.readResource(read, target, callOptionsFor(context));
        return result.contents;
      } catch (thrown) {
        const error = TrestleError.from(thrown);
        const message = describeFailure(error, {
          target,
          what: `resource '${uri}'`,
          operation: "resource reading",
        });
        // A resource read carries no secret values (only the URI of where the service keeps them).
        throw safeError(error, message);
      }
    },

    async provision(payload, context) {
      const resource = payload.payload;
      const target = await resolveResourceService(deps.resolver, resource.type);
      const reference = await provisionOnService({
        transport: deps.transports.transportFor(target),
        target,
        name: resource.name,
        what: `resource '${resource.name}'`,
        configurationData: payload.configurationData,
        secretsData: payload.secretsData,
        context,
      });
      return applyResourceProvisioning(resource, reference);
    },
  };
}
