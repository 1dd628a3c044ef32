import { create } from "@bufbuild/protobuf";
import type { Provisioning, ProvisioningReference } from "@trestle/core";
import {
  PayloadType,
  type ProvisionReply,
  type ProvisionRequest,
  ProvisionRequestSchema,
} from "@trestle/proto";

/**
 * The `ProvisionRequest` the contract prescribes for a tool or resource: configuration and secret both of
 * type BUILTIN named after it and carrying the given payloads, and an empty `uri`.
 */
export function buildProvisionRequest(provisioning: Provisioning): ProvisionRequest {
  const { name } = provisioning;
  return create(ProvisionRequestSchema, {
    uri: "",
    configuration: { type: PayloadType.BUILTIN, name, payload: provisioning.configurationData },
    secret: { type: PayloadType.BUILTIN, name, payload: provisioning.secretsData },
  });
}

/** The {@link ProvisioningReference} a `ProvisionReply` describes. */
export function provisioningReferenceFromReply(reply: ProvisionReply): ProvisioningReference {
  const properties: ProvisioningReference["properties"] = {};
  for (const [name, p] of Object.entries(reply.properties)) {
    properties[name] = { type: p.type, description: p.description, required: p.required };
  }
  return { configurationUri: reply.configurationUri, secretsUri: reply.secretUri, properties };
}
