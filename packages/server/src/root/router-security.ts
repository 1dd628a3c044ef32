import type { ServiceTarget } from "@trestle/core";
import type { Registry, RegistryOptions } from "@trestle/registry";
import {
  type CapabilitySecretResolver,
  capabilitySecretResolver,
  configuredCallSecrets,
} from "../capability-secrets.js";
import type { RouterConfig } from "../config.js";
import { type RegistrationPolicy, registrationPolicyOf } from "../registration-policy.js";

/** Who may register what where, which instances the router reaches, and which get a call secret: one place. */
export interface RouterSecurity {
  /** For the registration routes. */
  readonly policy: RegistrationPolicy;
  /** The call secret of each target, for the transports' interceptor. */
  readonly secretFor: CapabilitySecretResolver;
  /**
   * Whether a target may receive what is configured for its service name (its call secret, its upstream
   * credential): an instance its service's owner, or an admin, registered.
   */
  mayReceiveConfigured(target: ServiceTarget): boolean;
  /** For `createRegistry`: the configured owners of service names, and the instances never to probe. */
  readonly registryOptions: Required<Pick<RegistryOptions, "configuredOwner" | "instancePolicy">>;
  /**
   * Lets the call secrets see who registered each instance, once the registry is open (no call or probe runs
   * before): a configured secret goes only to an instance its service's owner, or an admin, registered.
   */
  bindRegistry(registry: Registry): void;
}

/**
 * Composes the router's {@link RegistrationPolicy} and its capability call secrets from the configuration and the
 * built-in services' generated secrets (by service name; their names are reserved for them).
 */
export function routerSecurity(
  config: Pick<RouterConfig, "tokens" | "services" | "registrationAllowedNetworks" | "oauth">,
  builtinSecrets: Readonly<Record<string, string>>,
): RouterSecurity {
  const policy = registrationPolicyOf(config, Object.keys(builtinSecrets));
  let registry: Registry | undefined;
  const mayReceiveConfigured = (target: ServiceTarget) =>
    policy.mayReceiveCallSecret(target.serviceName, registry?.services.get(target.id)?.registeredBy);
  return {
    policy,
    secretFor: capabilitySecretResolver({
      configured: configuredCallSecrets(config.services),
      builtin: builtinSecrets,
      mayReceiveConfigured,
    }),
    mayReceiveConfigured,
    registryOptions: {
      configuredOwner: (name) => policy.configuredOwner(name),
      instancePolicy: (service) => policy.instanceRefusal(service),
    },
    bindRegistry(opened) {
      registry = opened;
    },
  };
}
