import { create } from "@bufbuild/protobuf";
import {
  Code,
  isServiceFailure,
  type ResourcePayload,
  type ResourceReference,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import { type ResourceRequest, ResourceRequestSchema } from "@trestle/proto";
import type { BridgeDependencies, CallContext, ResourceContents } from "./call-context.js";
import { callOptionsFor, codecFor } from "./call-context.js";
import { guarded } from "./call-recorder.js";
import { describeFailure, safeError } from "./failure.js";
import { applyResourceProvisioning, provisionOnService } from "./provisioning.js";
import { resolveResourceService } from "./service-resolution.js";
import { isUriTemplate, matchUriTemplate } from "./uri-template.js";

/** One piece of a resource's contents, shaped as MCP's `TextResourceContents`. */
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
}

/** Routes `resources/read` to capability services and provisions resources on them. */
export interface ResourceBridge {
  /**
   * Reads `uri` (the resource's location, or a concrete URI matching its URI template) from the service that
   * provides resources of the resource's type. Each content string of the reply becomes one text entry (a
   * protocol codec may restore blobs and other URIs' contents).
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
 * The `ResourceRequest` for reading `uri` (contract §4): `location` is the requested URI; `type`, `name`,
 * `configuration_uri`, `secrets_uri` come from the reference (or ""); `params` are the reference's params plus
 * the variables the URI binds in the reference's URI template (those win, since they are this call's values).
 *
 * @throws TrestleError `InvalidArgument` when the resource's location is a template that `uri` does not match.
 */
export function buildResourceRequest(
  resource: ResourceReference,
  uri: string,
  requestId = "",
): ResourceRequest {
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
  return create(ResourceRequestSchema, {
    location: uri,
    type: resource.type,
    name: resource.name,
    params,
    configurationUri: resource.configurationURI ?? "",
    secretsUri: resource.secretsURI ?? "",
    requestId,
  });
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
      const request = buildResourceRequest(resource, uri, context?.requestId ?? "");
      const target: ServiceTarget = await resolveResourceService(deps.resolver, resource.type);
      const transport = deps.transports.transportFor(target);
      guarded(() => deps.outcomes?.callStarted?.(target));
      let serviceFailure = false;
      try {
        const reply = await transport.acquireResource(request, target, callOptionsFor(context));
        const codec = codecFor(deps, target.protocol);
        if (codec?.resourceContents) {
          return codec.resourceContents(reply.content, {
            uri,
            ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
          });
        }
        return reply.content.map((text) => {
          const contents: TextResourceContents = { uri, text };
          if (resource.mimeType) contents.mimeType = resource.mimeType;
          return contents;
        });
      } catch (thrown) {
        const error = TrestleError.from(thrown);
        serviceFailure = isServiceFailure(error);
        const message = describeFailure(error, {
          target,
          what: `resource '${uri}'`,
          operation: "resource reading",
        });
        // A resource read carries no secret values (only the URI of where the service keeps them).
        throw safeError(error, message, (text) => text);
      } finally {
        guarded(() => deps.outcomes?.callEnded?.(target, serviceFailure));
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
