import type {
  BridgeTransport,
  ProvisioningReference,
  ResourceReference,
  ServiceTarget,
  ToolReference,
} from "@trestle/core";
import { TrestleError } from "@trestle/core";
import type { CallContext } from "./call-context.js";
import { callOptionsFor } from "./call-context.js";
import { describeFailure, safeError } from "./failure.js";
import { createSecretValues } from "./secret-values.js";

/** What to provision, and where. */
export interface ProvisionCall {
  transport: BridgeTransport;
  target: ServiceTarget;
  /** The tool or resource name: the payloads' `name`. */
  name: string;
  /** `tool 'x'` or `resource 'y'`, for messages. */
  what: string;
  configurationData: string | undefined;
  secretsData: string | undefined;
  context: CallContext | undefined;
}

/**
 * Calls `Provision` on the service. The secrets payload goes only to the service: a failure is rethrown with
 * its text scrubbed of every fragment of the payload and without its `cause`, and the returned properties are
 * scrubbed the same way, so that a service that echoes what it received cannot leak it into a log, a
 * response or the catalog.
 *
 * @throws TrestleError with the service's code and a message naming the service.
 */
export async function provisionOnService(call: ProvisionCall): Promise<ProvisioningReference> {
  const secrets = createSecretValues();
  secrets.addPayload(call.secretsData);
  try {
    const reference = await call.transport.provision(
      {
        name: call.name,
        configurationData: call.configurationData ?? "",
        secretsData: call.secretsData ?? "",
      },
      call.target,
      callOptionsFor(call.context),
    );
    // Property descriptions end up in a tool's input schema, in front of every MCP client.
    return { ...reference, properties: secrets.scrubDeep(reference.properties) };
  } catch (thrown) {
    const error = TrestleError.from(thrown);
    const message = `Provisioning ${call.what} failed: ${describeFailure(error, {
      target: call.target,
      what: call.what,
      operation: "provisioning",
    })}`;
    throw safeError(error, message, secrets);
  }
}

/**
 * A copy of `tool` with the provisioned URIs set (where the service returned one) and each returned property
 * added to its input schema when the schema does not have it yet; the required ones among those added join
 * `required`. Properties the tool already declares are left as they are.
 */
export function applyToolProvisioning(tool: ToolReference, reference: ProvisioningReference): ToolReference {
  const copy = structuredClone(tool);
  setUris(copy, reference);
  const schema = copy.inputSchema ?? { type: "object" };
  const properties = { ...(schema.properties ?? {}) };
  const required = [...(schema.required ?? [])];
  let added = false;
  for (const [name, property] of Object.entries(reference.properties)) {
    if (Object.hasOwn(properties, name)) continue;
    added = true;
    properties[name] = { type: property.type, description: property.description };
    if (property.required && !required.includes(name)) required.push(name);
  }
  if (!added) return copy;
  copy.inputSchema = { ...schema, properties };
  if (required.length > 0) copy.inputSchema.required = required;
  return copy;
}

/** A copy of `resource` with the provisioned URIs set (where the service returned one). */
export function applyResourceProvisioning(
  resource: ResourceReference,
  reference: ProvisioningReference,
): ResourceReference {
  const copy = structuredClone(resource);
  setUris(copy, reference);
  return copy;
}

function setUris(
  entry: { configurationURI?: string; secretsURI?: string },
  reference: ProvisioningReference,
): void {
  if (reference.configurationUri) entry.configurationURI = reference.configurationUri;
  if (reference.secretsUri) entry.secretsURI = reference.secretsUri;
}
