import {
  type BridgeTransport,
  type CallOptions,
  type Interceptor,
  type ServiceTarget,
  withInterceptors,
} from "@trestle/core";

/** Where the router's capability call secrets come from; see {@link capabilitySecretResolver}. */
export interface CapabilitySecretSources {
  /**
   * Secrets the operator configured, by service name (`services.<name>.callSecret`): sent to the instances
   * registered under that name that may receive it ({@link CapabilitySecretSources.mayReceiveConfigured}),
   * wherever they are.
   */
  configured?: Readonly<Record<string, string>>;
  /**
   * Secrets generated for the built-in services the router started itself, by the service name each registers
   * under: sent only to an instance of that name on a loopback address, since the built-ins listen only there.
   * A same-named registration elsewhere never gets them.
   */
  builtin?: Readonly<Record<string, string>>;
  /**
   * Whether a target may receive the secret configured for its service name: the router sends it only to
   * instances the service's owner (or an admin) registered, so a principal that got an instance under the name
   * otherwise never learns it. Every target may when absent.
   */
  mayReceiveConfigured?: (target: ServiceTarget) => boolean;
}

/** The call secrets configured per service name (`services.<name>.callSecret`). */
export function configuredCallSecrets(
  services: Readonly<Record<string, { callSecret?: string | undefined }>>,
): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [name, service] of Object.entries(services)) {
    if (service.callSecret !== undefined) secrets[name] = service.callSecret;
  }
  return secrets;
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
 * built-in the router started demands), else the one configured for its service name when the target may receive
 * it (see {@link CapabilitySecretSources.mayReceiveConfigured}), else none. There is
 * deliberately no router-wide default: a secret sent to every registered service would reach whoever registers
 * one, who could then call the built-ins directly.
 */
export function capabilitySecretResolver(sources: CapabilitySecretSources): CapabilitySecretResolver {
  const configured = new Map(Object.entries(sources.configured ?? {}));
  const builtin = new Map(Object.entries(sources.builtin ?? {}));
  const mayReceive = sources.mayReceiveConfigured ?? (() => true);
  return (target) => {
    const generated = builtin.get(target.serviceName);
    if (generated !== undefined && isLoopbackHost(target.host)) return generated;
    const secret = configured.get(target.serviceName);
    return secret !== undefined && mayReceive(target) ? secret : undefined;
  };
}

function withSecret(
  secretFor: CapabilitySecretResolver,
  secretKey: string,
  target: ServiceTarget,
  options: CallOptions,
): CallOptions {
  const secret = secretFor(target);
  const metadata = options.metadata;
  // Only the router puts a value under this key: one that came with the call (a forwarded client header) goes.
  const carried =
    metadata !== undefined && Object.keys(metadata).some((key) => key.toLowerCase() === secretKey);
  if (secret === undefined && !carried) return options;
  const kept = Object.fromEntries(
    Object.entries(metadata ?? {}).filter(([key]) => key.toLowerCase() !== secretKey),
  );
  return {
    ...options,
    metadata: secret === undefined ? kept : { ...kept, [secretKey]: secret },
  };
}

/**
 * An interceptor that gives every call (tool calls, resource reads, prompts, code execution streams,
 * provisioning, health probes) the target's call secret in the `secretKey` metadata (the wire's: the Wanaku
 * transports' is `x-trestle-capability-secret`, which the composition root passes), and lets no call carry one
 * meant for another target. Composed innermost, below the bridge's events and the scrubbing, so
 * the secret never appears in an event, a log line or the history.
 *
 * @example
 * ```ts
 * const grpc = withInterceptors(createGrpcTransport(), [...shared, capabilitySecret(secretFor, CAPABILITY_SECRET_METADATA_KEY)]);
 * ```
 */
export function capabilitySecret(secretFor: CapabilitySecretResolver, secretKey: string): Interceptor {
  const key = secretKey.toLowerCase();
  return (next) => (request) => {
    const options = withSecret(secretFor, key, request.target, request.options);
    return next(options === request.options ? request : { ...request, options });
  };
}

/** `transport` with {@link capabilitySecret} around every call: for a transport composed on its own. */
export function withCapabilitySecrets(
  transport: BridgeTransport,
  secretFor: CapabilitySecretResolver,
  secretKey: string,
): BridgeTransport {
  return withInterceptors(transport, [capabilitySecret(secretFor, secretKey)]);
}
