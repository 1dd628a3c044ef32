import { create } from "@bufbuild/protobuf";
import type { ResourceRead } from "@trestle/core";
import { type ResourceRequest, ResourceRequestSchema } from "@trestle/proto";

/**
 * The `ResourceRequest` for a read (contract §4): `location` is the requested URI; `type`, `name`,
 * `configuration_uri`, `secrets_uri` come from the resource (or ""); `params` are the read's (the resource's
 * own params and the variables the URI binds in its template, as the bridge computed them).
 */
export function buildResourceRequest(read: ResourceRead, requestId = ""): ResourceRequest {
  return create(ResourceRequestSchema, {
    location: read.uri,
    type: read.resource.type,
    name: read.resource.name,
    params: { ...(read.params ?? {}) },
    configurationUri: read.resource.configurationURI ?? "",
    secretsUri: read.resource.secretsURI ?? "",
    requestId,
  });
}
