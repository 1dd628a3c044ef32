import { Code, TrestleError } from "@trestle/core";
import type { RegistrationActor, Registry } from "@trestle/registry";
import type { JsonApi } from "../http/json-api.js";
import { type Principal, principalName } from "../http/security.js";
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
 * registration under its service name, is refused (403) with nothing written.
 */
export function registerDiscoveryRoutes(
  api: JsonApi,
  deps: {
    registry: Registry;
    /**
     * Service names kept for the built-in services this process starts, and the principal they register as:
     * no other principal (but an admin) may register under them, not even before the built-ins have.
     */
    reserved?: { serviceNames: readonly string[]; principal: string };
  },
): void {
  const { services } = deps.registry;
  const reservedNames = new Set(deps.reserved?.serviceNames ?? []);

  api.route(op.registerService, async (r) => {
    const registration = r.body;
    const actor = actorOf(r);
    if (
      reservedNames.has(registration.serviceName) &&
      !actor.admin &&
      actor.principal !== deps.reserved?.principal
    ) {
      throw new TrestleError(
        `The service name '${registration.serviceName}' is reserved for the router's built-in services`,
        Code.PermissionDenied,
      );
    }
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
