import { Code, TrestleError } from "@trestle/core";
import { parseRegistration, type RegistrationActor, type Registry } from "@trestle/registry";
import type { ApiRequest, JsonApi } from "../http/json-api.js";
import { principalName } from "../http/security.js";

/**
 * Who asks for a registration change: the request's principal, bound to what it registers. An admin token may
 * change any registration; on a router without tokens, a request without one is `anonymous`.
 */
function actorOf(request: ApiRequest): RegistrationActor {
  return {
    principal: principalName(request.principal),
    admin: request.principal?.scopes.includes("admin") ?? false,
  };
}

/**
 * Capability registration on Wanaku's paths (`/api/v1/management/discovery`), and the fleet's view
 * (`/api/v1/capabilities`): list with health, status summary, health history, stale cleanup. A registration is
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

  api.route("POST", "/api/v1/management/discovery", async (r) => {
    const registration = parseRegistration(await r.json());
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
  api.route("DELETE", "/api/v1/management/discovery", async (r) => {
    const body = (await r.json()) as { id?: unknown };
    if (typeof body !== "object" || body === null || typeof body.id !== "string" || body.id.length === 0) {
      throw new TrestleError("Deregistration needs the service's 'id'", Code.InvalidArgument);
    }
    await services.deregister(body.id, actorOf(r));
    return { data: null };
  });
  api.route("POST", "/api/v1/management/discovery/heartbeats", async (r) => {
    let id = (await r.text()).trim();
    // Wanaku 0.2.0 clients send the id as raw text; some send it as a JSON string or {"id": …}.
    if (id.startsWith('"') || id.startsWith("{")) {
      try {
        const parsed = JSON.parse(id) as unknown;
        id = typeof parsed === "string" ? parsed : String((parsed as { id?: unknown }).id ?? "");
      } catch {
        throw new TrestleError("The heartbeat body must be the service id", Code.InvalidArgument);
      }
    }
    if (!id) throw new TrestleError("The heartbeat body must be the service id", Code.InvalidArgument);
    await services.heartbeat(id, actorOf(r));
    return { data: null };
  });

  api.route("GET", "/api/v1/capabilities", async () => ({ data: await services.listWithActivity() }));
  api.route("GET", "/api/v1/capabilities/status", () => {
    const all = services.list();
    const byState: Record<string, number> = { healthy: 0, pending: 0, unhealthy: 0, down: 0 };
    for (const s of all) byState[s.health] = (byState[s.health] ?? 0) + 1;
    return { data: { total: all.length, ...byState } };
  });
  api.route("GET", "/api/v1/capabilities/:id", ({ params }) => {
    const service = services.get(params.id as string);
    if (!service) throw new TrestleError(`No service with id '${params.id}'`, Code.NotFound);
    return { data: service };
  });
  api.route("GET", "/api/v1/capabilities/:id/health", async ({ params }) => ({
    data: await services.healthHistory(params.id as string),
  }));
  api.route("DELETE", "/api/v1/capabilities/stale", async ({ query }) => {
    const olderThan = query.get("olderThanMs");
    const ms = olderThan === null ? undefined : Number(olderThan);
    if (ms !== undefined && (!Number.isFinite(ms) || ms < 0)) {
      throw new TrestleError("'olderThanMs' must be a non-negative number", Code.InvalidArgument);
    }
    return { data: await services.cleanupStale(ms) };
  });
}
