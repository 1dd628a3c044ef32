import { create } from "@bufbuild/protobuf";
import {
  PayloadType,
  type ProvisionReply,
  type ProvisionRequest,
  ProvisionRequestSchema,
} from "@trestle/proto";
import type { ProvisioningReference } from "./transport.js";

/**
 * The `ProvisionRequest` the contract prescribes for a tool or resource named `name`: configuration and secret
 * both of type BUILTIN carrying the given payloads, and an empty `uri`.
 */
export function buildProvisionRequest(
  name: string,
  configData: string,
  secretsData: string,
): ProvisionRequest {
  return create(ProvisionRequestSchema, {
    uri: "",
    configuration: { type: PayloadType.BUILTIN, name, payload: configData },
    secret: { type: PayloadType.BUILTIN, name, payload: secretsData },
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
