import {
  type BridgeTransport,
  CAPABILITY_SECRET_METADATA_KEY,
  type CallOptions,
  type ServiceTarget,
} from "@trestle/core";

/** Where the router's capability call secrets come from; see {@link capabilitySecretResolver}. */
export interface CapabilitySecretSources {
  /**
   * Secrets the operator configured, by service name (`services.<name>.callSecret`): sent to every instance
   * registered under that name, wherever it is.
   */
  configured?: Readonly<Record<string, string>>;
  /**
   * Secrets generated for the built-in services the router started itself, by the service name each registers
   * under: sent only to an instance of that name on a loopback address, since the built-ins listen only there.
   * A same-named registration elsewhere never gets them.
   */
  builtin?: Readonly<Record<string, string>>;
}

/** Which secret, if any, the router sends to a target. */
export type CapabilitySecretResolver = (target: ServiceTarget) => string | undefined;

/** True for an address only this machine can be reached on (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost" || bare === "::1") return true;
  const v4 = bare.startsWith("::ffff:") ? bare.slice("::ffff:".length) : bare;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Resolves the call secret of each target: a built-in's for its service name when it sits on loopback (what the
 * built-in the router started demands), else the one configured for its service name, else none. There is
 * deliberately no router-wide default: a secret sent to every registered service would reach whoever registers
 * one, who could then call the built-ins directly.
 */
export function capabilitySecretResolver(sources: CapabilitySecretSources): CapabilitySecretResolver {
  const configured = new Map(Object.entries(sources.configured ?? {}));
  const builtin = new Map(Object.entries(sources.builtin ?? {}));
  return (target) => {
    const generated = builtin.get(target.serviceName);
    if (generated !== undefined && isLoopbackHost(target.host)) return generated;
    return configured.get(target.serviceName);
  };
}

function withSecret(
  secretFor: CapabilitySecretResolver,
  target: ServiceTarget,
  options: CallOptions | undefined,
): CallOptions | undefined {
  const secret = secretFor(target);
  const metadata = options?.metadata;
  // Only the router puts a value under this key: one that came with the call (a forwarded client header) goes.
  const carried =
    metadata !== undefined &&
    Object.keys(metadata).some((key) => key.toLowerCase() === CAPABILITY_SECRET_METADATA_KEY);
  if (secret === undefined && !carried) return options;
  const kept = Object.fromEntries(
    Object.entries(metadata ?? {}).filter(([key]) => key.toLowerCase() !== CAPABILITY_SECRET_METADATA_KEY),
  );
  return {
    ...options,
    metadata: secret === undefined ? kept : { ...kept, [CAPABILITY_SECRET_METADATA_KEY]: secret },
  };
}

/**
 * Wraps a transport so that every call it makes (tool calls, resource reads, code execution streams,
 * provisioning, health probes) carries the target's call secret in `x-trestle-capability-secret` metadata,
 * and no call carries one meant for another target. Below the bridge and its events, so the secret never
 * appears in an event, a log line or the history.
 */
export function withCapabilitySecrets(
  transport: BridgeTransport,
  secretFor: CapabilitySecretResolver,
): BridgeTransport {
  const wrapped: BridgeTransport = {
    provision: (name, configData, secretsData, target, options) =>
      transport.provision(name, configData, secretsData, target, withSecret(secretFor, target, options)),
    invokeTool: (request, target, options) =>
      transport.invokeTool(request, target, withSecret(secretFor, target, options)),
    acquireResource: (request, target, options) =>
      transport.acquireResource(request, target, withSecret(secretFor, target, options)),
    executeCode: (request, target, options) =>
      transport.executeCode(request, target, withSecret(secretFor, target, options)),
    probeHealth: (target, options) => transport.probeHealth(target, withSecret(secretFor, target, options)),
    close: () => transport.close(),
  };
  if (transport.release) {
    const release = transport.release.bind(transport);
    wrapped.release = (target) => release(target);
  }
  return wrapped;
}
