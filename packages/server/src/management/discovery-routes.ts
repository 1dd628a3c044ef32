import { Code, TrestleError } from "@trestle/core";
import type { RegistrationActor, Registry } from "@trestle/registry";
import type { JsonApi } from "../http/json-api.js";
import { type Principal, principalName } from "../http/security.js";
import type { RegistrationPolicy } from "../registration-policy.js";
import { managementApi as op } from "./operations.js";

/**
 * Who asks for a registration change: the request's principal, bound to what it registers. An admin token may
 * change any registration; on a router without tokens, a request without one is `anonymous`.
 */
function actorOf(request: { principal: Principal | undefined }): RegistrationActor {
  return {
    principal: principalName(request.principal),
    admin: request.principal?.scopes.includes("admin") ?? false,
  };
}

/**
 * Capability registration on Wanaku's paths (`/api/v1/management/discovery`), and the fleet's view
 * (`/api/v1/capabilities`): list with health, status summary, circuits, health history, stale cleanup. A registration is
 * bound to the principal that made it: another one's re-registration, heartbeat or deregistration of it, or a
 * registration under its service name (which stays its owner's when its instances are gone), is refused (403)
 * with nothing written, as is one the registration policy refuses (a configured name, a private address).
 */
export function registerDiscoveryRoutes(
  api: JsonApi,
  deps: {
    registry: Registry;
    /**
     * Who may register what, where: names the configuration binds (the built-ins' from the router's start, before
     * they register) are their principal's, and non-admin registrations may not use private, loopback,
     * link-local or other special-purpose addresses unless the operator allowed their network. Nothing is
     * checked beyond the store's ownership when absent.
     */
    policy?: RegistrationPolicy;
  },
): void {
  const { services } = deps.registry;

  api.route(op.registerService, async (r) => {
    const registration = r.body;
    const actor = actorOf(r);
    await deps.policy?.checkRegistration(registration, actor);
    return { data: await services.register(registration, actor) };
  });
  api.route(op.deregisterService, async (r) => {
    await services.deregister(r.body.id, actorOf(r));
    return { data: null };
  });
  api.route(op.heartbeat, async (r) => {
    await services.heartbeat(r.body, actorOf(r));
    return { data: null };
  });

  api.route(op.listCapabilities, async () => ({ data: await services.listWithActivity() }));
  api.route(op.capabilitiesStatus, () => {
    const all = services.list();
    const byState = { healthy: 0, pending: 0, unhealthy: 0, down: 0 };
    for (const s of all) byState[s.health]++;
    return { data: { total: all.length, ...byState } };
  });
  // Before `getCapability`: `circuits` is not a registration id.
  api.route(op.capabilityCircuits, () => ({
    data: services.list().map((s) => ({
      id: s.id,
      state: deps.registry.resolver.circuitState(s.id),
      inFlight: deps.registry.resolver.inFlight(s.id),
    })),
  }));
  api.route(op.getCapability, ({ params }) => {
    const service = services.get(params.id);
    if (!service) throw new TrestleError(`No service with id '${params.id}'`, Code.NotFound);
    return { data: service };
  });
  api.route(op.capabilityHealth, async ({ params }) => ({
    data: await services.healthHistory(params.id),
  }));
  api.route(op.removeStaleCapabilities, async ({ query }) => {
    const ms = query.olderThanMs === undefined ? undefined : Number(query.olderThanMs);
    if (ms !== undefined && (!Number.isFinite(ms) || ms < 0)) {
      throw new TrestleError("'olderThanMs' must be a non-negative number", Code.InvalidArgument);
    }
    return { data: await services.cleanupStale(ms) };
  });
}
