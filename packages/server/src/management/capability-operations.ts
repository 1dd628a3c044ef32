import { registrationSchema } from "@trestle/registry";
import { z } from "zod";
import {
  fleetStatusSchema,
  healthRecordSchema,
  idParams,
  registeredServiceSchema,
  serviceCircuitSchema,
} from "./api-schemas.js";
import { jsonAnswer, operationGroup } from "./operation-group.js";

// Capability services: registration needs only a `register` token, the rest `admin`.
const registrationOperation = operationGroup({ tags: ["capabilities"], scope: "register" });
const capabilityOperation = operationGroup({ tags: ["capabilities"], scope: "admin" });
const registerService = registrationOperation({
  id: "registerService",
  method: "POST",
  path: "/api/v1/management/discovery",
  summary: "Register a capability service (or register it again: same id)",
  description:
    "A `register` token is enough. A registration is bound to the principal that made it: another one's re-registration, or one under a service name that principal holds, is refused (403).",
  body: {
    kind: "json",
    schema: registrationSchema,
    what: "service registration",
    description: "Where the service listens and what it offers",
  },
  response: jsonAnswer(
    "The service's target, with the id to heartbeat and deregister with",
    registeredServiceSchema.shape.target,
  ),
  errors: [400, 403, 409, 503],
});
const deregisterService = registrationOperation({
  id: "deregisterService",
  method: "DELETE",
  path: "/api/v1/management/discovery",
  summary: "Deregister a capability service",
  body: {
    kind: "json",
    schema: z.object({
      id: z.string({ error: "must be the service's id" }).min(1, "must be the service's id"),
    }),
    what: "deregistration",
    description: "The service's registration id",
  },
  response: jsonAnswer("Deregistered", z.null()),
  errors: [400, 403, 404, 503],
});
const heartbeat = registrationOperation({
  id: "heartbeat",
  method: "POST",
  path: "/api/v1/management/discovery/heartbeats",
  summary: "Tell the router a capability service is alive",
  body: {
    kind: "text",
    // Wanaku 0.2.0 clients send the id as raw text; some send it as a JSON string or {"id": …}.
    schema: z.string().transform((text, context) => {
      let id = text.trim();
      if (id.startsWith('"') || id.startsWith("{")) {
        try {
          const parsed = JSON.parse(id) as unknown;
          id = typeof parsed === "string" ? parsed : String((parsed as { id?: unknown }).id ?? "");
        } catch {
          id = "";
        }
      }
      if (!id) {
        context.addIssue({ code: "custom", message: "The heartbeat body must be the service id" });
        return z.NEVER;
      }
      return id;
    }),
    json: z.union([z.string(), z.object({ id: z.string() })]),
    description: 'The service\'s registration id, as text (or a JSON string, or `{"id": …}`)',
  },
  response: jsonAnswer("Recorded", z.null()),
  errors: [400, 403, 404, 503],
});
const listCapabilities = capabilityOperation({
  id: "listCapabilities",
  method: "GET",
  path: "/api/v1/capabilities",
  summary: "List the registered capability services with their health and last activity",
  response: jsonAnswer("The services", z.array(registeredServiceSchema)),
  errors: [503],
});
const capabilitiesStatus = capabilityOperation({
  id: "capabilitiesStatus",
  method: "GET",
  path: "/api/v1/capabilities/status",
  summary: "How many services are in each health state",
  response: jsonAnswer("The counts", fleetStatusSchema),
  errors: [],
});
const capabilityCircuits = capabilityOperation({
  id: "capabilityCircuits",
  method: "GET",
  path: "/api/v1/capabilities/circuits",
  summary: "Each registered service's circuit and calls in flight, on the router process that answers",
  description:
    "Circuits are kept per router process: each replica judges the calls it made, so another replica may answer differently.",
  response: jsonAnswer("One entry per registered service", z.array(serviceCircuitSchema)),
  errors: [],
});
const getCapability = capabilityOperation({
  id: "getCapability",
  method: "GET",
  path: "/api/v1/capabilities/{id}",
  summary: "Get a registered service",
  params: idParams,
  response: jsonAnswer("The service", registeredServiceSchema),
  errors: [404],
});
const capabilityHealth = capabilityOperation({
  id: "capabilityHealth",
  method: "GET",
  path: "/api/v1/capabilities/{id}/health",
  summary: "A service's latest health changes, newest first",
  params: idParams,
  response: jsonAnswer("The health history", z.array(healthRecordSchema)),
  errors: [400, 503],
});
const removeStaleCapabilities = capabilityOperation({
  id: "removeStaleCapabilities",
  method: "DELETE",
  path: "/api/v1/capabilities/stale",
  summary: "Remove the services with no sign of life for a while",
  query: z.object({
    olderThanMs: z
      .string()
      .optional()
      .describe("Milliseconds without a sign of life (default: the router's `staleServiceTtlMs`)"),
  }),
  response: jsonAnswer("The services removed", z.array(registeredServiceSchema)),
  errors: [400, 503],
});

/** The capability services' operations: registration, deregistration and heartbeats, the fleet's status, circuits and health. By `operationId`, as `managementApi` lists them. */
export const capabilityOperations = {
  registerService,
  deregisterService,
  heartbeat,
  listCapabilities,
  capabilitiesStatus,
  capabilityCircuits,
  getCapability,
  capabilityHealth,
  removeStaleCapabilities,
} as const;
