import { lookup } from "node:dns/promises";
import { Code, TrestleError } from "@trestle/core";
import {
  createNetworkList,
  isIpLiteral,
  type NetworkList,
  specialAddressRange,
} from "@trestle/core/address-ranges";
import type { RegisteredService, RegistrationActor } from "@trestle/registry";
import { BUILTIN_PRINCIPAL, type RouterConfig } from "./config.js";

/** What {@link createRegistrationPolicy} needs of the router's configuration. */
export interface RegistrationPolicyOptions {
  /** The configured tokens: which principals are admins, and whether the router has any token at all. */
  tokens: readonly { name: string; scopes: readonly string[] }[];
  /** Per-service settings: `principal` binds a name, `allowedNetworks` opens special ranges for it. */
  services: Readonly<
    Record<string, { principal?: string | undefined; allowedNetworks?: readonly string[] | undefined }>
  >;
  /** Special-purpose networks every non-admin registration may use (`registrationAllowedNetworks`). */
  allowedNetworks: readonly string[];
  /**
   * The built-in services this process starts: their names are reserved for their principal, which may register
   * on loopback (where they listen).
   */
  builtin?: { principal: string; serviceNames: readonly string[] };
  /** Resolves a host name to its addresses (default: the system resolver, every address). */
  resolve?: (host: string) => Promise<string[]>;
  /** True when requests need a credential though no static token is configured (OAuth). */
  oauth?: boolean;
}

/**
 * Who may register what, where; and which registered instances the router may reach and send a configured call
 * secret to. One object for the registration route, the health prober and the call secret interceptor, so they
 * cannot disagree.
 */
export interface RegistrationPolicy {
  /** The principal a service name is bound to by configuration (the built-ins' principal for theirs), if any. */
  configuredOwner(serviceName: string): string | undefined;
  /**
   * Checks a registration before it is recorded: a name reserved or configured for another principal, and an
   * address in a private, loopback, link-local or other special-purpose range (the host name's every address)
   * that the registering principal may not use. Admins may register anything; so may anyone on a router without
   * tokens, where every scope is open to whoever can reach it.
   * @throws TrestleError `PermissionDenied` saying what was refused and what an operator may allow.
   */
  checkRegistration(
    registration: { serviceName: string; host: string },
    actor: RegistrationActor,
  ): Promise<void>;
  /**
   * Why the router must not reach a registered instance (the same address rule, for the principal that
   * registered it, and a configured name registered by another principal), or `undefined`: what the prober asks
   * before every probe.
   */
  instanceRefusal(service: RegisteredService): Promise<string | undefined>;
  /**
   * Whether an instance registered by `registeredBy` may receive its service's configured call secret: only one
   * its owner registered (the configured principal; without one, the store holds every name for its first
   * registrant, so any bound instance is the owner's or an admin's), or an admin.
   */
  mayReceiveCallSecret(serviceName: string, registeredBy: string | undefined): boolean;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((entry) => entry.address);
}

/** Creates the {@link RegistrationPolicy} for the router's configuration. */
export function createRegistrationPolicy(options: RegistrationPolicyOptions): RegistrationPolicy {
  const admins = new Set(options.tokens.filter((t) => t.scopes.includes("admin")).map((t) => t.name));
  // Without tokens every scope, admin included, is open to whoever reaches the router: no address is refused.
  const open = options.tokens.length === 0 && !options.oauth;
  const resolve = options.resolve ?? resolveAll;
  const everywhere = createNetworkList(options.allowedNetworks);
  const perService = new Map<string, NetworkList>();
  for (const [name, service] of Object.entries(options.services)) {
    if (service.allowedNetworks && service.allowedNetworks.length > 0)
      perService.set(name, createNetworkList(service.allowedNetworks));
  }
  const builtinNames = new Set(options.builtin?.serviceNames ?? []);

  const configuredOwner = (serviceName: string): string | undefined =>
    builtinNames.has(serviceName) ? options.builtin?.principal : options.services[serviceName]?.principal;

  /** Why `principal` may not put `serviceName` at `host`, or undefined. */
  async function addressRefusal(
    principal: string,
    admin: boolean,
    serviceName: string,
    host: string,
  ): Promise<string | undefined> {
    if (admin || open) return undefined;
    const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
    let addresses: string[];
    try {
      addresses = isIpLiteral(bare) ? [bare] : await resolve(bare);
    } catch (error) {
      return `the host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? "lookup failed"})`;
    }
    if (addresses.length === 0) return `the host ${host} resolved to no address`;
    const builtin = principal === options.builtin?.principal;
    for (const address of addresses) {
      const range = specialAddressRange(address);
      if (range === undefined) continue;
      if (builtin && range.name === "loopback") continue;
      if (everywhere.includes(address) || perService.get(serviceName)?.includes(address)) continue;
      // A host name's address is not quoted: a register token learns no more of the router's DNS than that.
      const what = isIpLiteral(bare)
        ? `${host} is a ${range.name} address`
        : `${host} resolves to a ${range.name} address`;
      return `${what}, which registrations by '${principal}' may not use; an operator may allow its network with registrationAllowedNetworks or services.${serviceName}.allowedNetworks`;
    }
    return undefined;
  }

  return {
    configuredOwner,

    async checkRegistration(registration, actor) {
      const owner = configuredOwner(registration.serviceName);
      if (owner !== undefined && owner !== actor.principal && !actor.admin) {
        throw new TrestleError(
          builtinNames.has(registration.serviceName)
            ? `The service name '${registration.serviceName}' is reserved for the router's built-in services`
            : `The service name '${registration.serviceName}' belongs to another credential in the router's configuration; only that credential (or an admin token) may register under it`,
          Code.PermissionDenied,
        );
      }
      const refusal = await addressRefusal(
        actor.principal,
        actor.admin,
        registration.serviceName,
        registration.host,
      );
      if (refusal !== undefined)
        throw new TrestleError(`Registration refused: ${refusal}`, Code.PermissionDenied);
    },

    async instanceRefusal(service) {
      const { serviceName, host } = service.target;
      const by = service.registeredBy;
      const admin = by !== undefined && admins.has(by);
      const owner = configuredOwner(serviceName);
      if (owner !== undefined && by !== owner && !admin && !open)
        return `It was registered by '${by ?? "an unknown principal"}', but the service name belongs to '${owner}' in the router's configuration`;
      const refusal = await addressRefusal(by ?? "an unknown principal", admin, serviceName, host);
      return refusal === undefined ? undefined : `Not probed: ${refusal}`;
    },

    mayReceiveCallSecret(serviceName, registeredBy) {
      if (registeredBy === undefined) return false;
      if (admins.has(registeredBy)) return true;
      const owner = options.services[serviceName]?.principal;
      return owner === undefined || owner === registeredBy;
    },
  };
}

/**
 * The {@link RegistrationPolicy} of a router's configuration, with the names of the built-in services this
 * process starts (registered by {@link BUILTIN_PRINCIPAL}).
 */
export function registrationPolicyOf(
  config: Pick<RouterConfig, "tokens" | "services" | "registrationAllowedNetworks" | "oauth">,
  builtinServiceNames: readonly string[],
): RegistrationPolicy {
  return createRegistrationPolicy({
    tokens: config.tokens,
    oauth: config.oauth !== undefined,
    services: config.services,
    allowedNetworks: config.registrationAllowedNetworks,
    builtin: { principal: BUILTIN_PRINCIPAL, serviceNames: builtinServiceNames },
  });
}
