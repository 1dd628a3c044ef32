import {
  forwardSchema,
  namespaceEntrySchema,
  namespaceInputSchema,
  promptInputSchema,
  promptSchema,
  registrationSchema,
  resourceInputSchema,
  resourceSchema,
  toolInputSchema,
  toolSchema,
} from "@trestle/registry";
import { z } from "zod";
import { defineOperation } from "../http/json-api.js";
import {
  codeExecutionEventSchema,
  codeExecutionRequestSchema,
  codeExecutionTaskSchema,
  entryListQuery,
  fleetStatusSchema,
  forwardViewSchema,
  healthRecordSchema,
  idParams,
  nameParams,
  namespaceQuery,
  registeredServiceSchema,
  registryEventSchema,
  serviceCircuitSchema,
  toolCallEventSchema,
} from "./api-schemas.js";
import { forwardRequestSchema, forwardShorthandSchema } from "./forward-shorthand.js";

/*
 * Every operation of the management API: path, method and the schemas of what it reads and answers, on Wanaku's
 * paths where Wanaku has them. The route files implement these; the OpenAPI document is generated from them;
 * a client takes its types from them.
 */

const bulkRemoveQuery = namespaceQuery.extend({
  labelFilter: z.string().optional().describe("A label expression: the entries whose labels match it go"),
  labels: z.string().optional().describe("Another name for `labelFilter`"),
});

function payloadBody<S extends z.ZodType>(entry: S) {
  return z.object({
    payload: entry,
    configurationData: z
      .string()
      .nullish()
      .describe(
        "Configuration (properties text) the capability stores and the entry's `configurationURI` names",
      ),
    secretsData: z
      .string()
      .nullish()
      .describe("Secrets (properties text) the capability stores and the entry's `secretsURI` names"),
  });
}

const entryErrors = [400, 404] as const;
const writeErrors = [400, 404, 409, 503] as const;

/** A kind of catalog entry, for the operations every kind has. */
interface EntryKind<M extends string, E extends z.ZodType, I extends z.ZodType> {
  /** Its name in messages and summaries: `tool`. */
  one: string;
  /** Its plural, in paths and tags: `tools`. */
  many: M;
  /** The entry as stored and answered. */
  entry: E;
  /** The entry as a client sends it. */
  input: I;
  /** How lists are sorted. */
  order: string;
  /** What a replacement may not change. */
  fixed: string;
  /** The operations' ids. */
  ids: { list: string; add: string; removeMatching: string; get: string; update: string; remove: string };
}

/** List, add, remove by label filter, get, replace and remove, on Wanaku's paths for `kind`. */
function entryOperations<M extends string, E extends z.ZodType, I extends z.ZodType>(
  kind: EntryKind<M, E, I>,
) {
  const base = { tags: [kind.many], scope: "admin" } as const;
  const one = { params: nameParams, query: namespaceQuery } as const;
  const answer = (description: string) =>
    ({ kind: "json", status: 200, description, data: kind.entry }) as const;
  return {
    list: defineOperation({
      ...base,
      id: kind.ids.list,
      method: "GET",
      path: `/api/v1/${kind.many}`,
      summary: `List the ${kind.many} of a namespace`,
      query: entryListQuery,
      response: {
        kind: "json",
        status: 200,
        description: `The ${kind.many}, ${kind.order}`,
        data: z.array(kind.entry),
      },
      errors: entryErrors,
    }),
    add: defineOperation({
      ...base,
      id: kind.ids.add,
      method: "POST",
      path: `/api/v1/${kind.many}`,
      summary: `Add a ${kind.one}`,
      body: { kind: "json", schema: kind.input, what: kind.one, description: `The ${kind.one}` },
      response: answer(`The ${kind.one} as stored (with its id)`),
      errors: writeErrors,
    }),
    removeMatching: defineOperation({
      ...base,
      id: kind.ids.removeMatching,
      method: "DELETE",
      path: `/api/v1/${kind.many}`,
      summary: `Remove the ${kind.many} whose labels match a filter`,
      query: bulkRemoveQuery,
      response: {
        kind: "json",
        status: 200,
        description: `The ${kind.many} removed`,
        data: z.array(kind.entry),
      },
      errors: writeErrors,
    }),
    get: defineOperation({
      ...base,
      ...one,
      id: kind.ids.get,
      method: "GET",
      path: `/api/v1/${kind.many}/{name}`,
      summary: `Get a ${kind.one} by name`,
      response: answer(`The ${kind.one}`),
      errors: entryErrors,
    }),
    update: defineOperation({
      ...base,
      ...one,
      id: kind.ids.update,
      method: "PUT",
      path: `/api/v1/${kind.many}/{name}`,
      summary: `Replace a ${kind.one} (${kind.fixed} stay)`,
      body: { kind: "json", schema: kind.input, what: kind.one, description: `The ${kind.one}'s new value` },
      response: answer(`The ${kind.one} as stored`),
      errors: writeErrors,
    }),
    remove: defineOperation({
      ...base,
      ...one,
      id: kind.ids.remove,
      method: "DELETE",
      path: `/api/v1/${kind.many}/{name}`,
      summary: `Remove a ${kind.one} by name`,
      response: answer(`The ${kind.one} removed`),
      errors: writeErrors,
    }),
  };
}

/** Add with provisioning: the capability stores the entry's configuration and secrets first. */
function payloadOperation<M extends string, E extends z.ZodType, I extends z.ZodType>(
  kind: EntryKind<M, E, I>,
  id: string,
) {
  return defineOperation({
    id,
    tags: [kind.many],
    scope: "admin",
    method: "POST",
    path: `/api/v1/${kind.many}/payloads`,
    summary: `Add a ${kind.one} and have its capability store its configuration and secrets`,
    body: {
      kind: "json",
      schema: payloadBody(kind.input),
      what: `${kind.one} payload`,
      description: `The ${kind.one}, with its configuration and secrets`,
    },
    response: {
      kind: "json",
      status: 200,
      description: `The ${kind.one} as stored, with the URIs the capability provisioned`,
      data: kind.entry,
    },
    errors: [...writeErrors, 502],
  });
}

const toolKind = {
  one: "tool",
  many: "tools",
  entry: toolSchema,
  input: toolInputSchema,
  order: "by name",
  fixed: "its name and namespace",
  ids: {
    list: "listTools",
    add: "addTool",
    removeMatching: "removeTools",
    get: "getTool",
    update: "updateTool",
    remove: "removeTool",
  },
} as const;
const resourceKind = {
  one: "resource",
  many: "resources",
  entry: resourceSchema,
  input: resourceInputSchema,
  order: "by location",
  fixed: "its location and namespace",
  ids: {
    list: "listResources",
    add: "addResource",
    removeMatching: "removeResources",
    get: "getResource",
    update: "updateResource",
    remove: "removeResource",
  },
} as const;
const tools = entryOperations(toolKind);
const resources = entryOperations(resourceKind);
const prompts = entryOperations({
  one: "prompt",
  many: "prompts",
  entry: promptSchema,
  input: promptInputSchema,
  order: "by name",
  fixed: "its name and namespace",
  ids: {
    list: "listPrompts",
    add: "addPrompt",
    removeMatching: "removePrompts",
    get: "getPrompt",
    update: "updatePrompt",
    remove: "removePrompt",
  },
});

// Namespaces
const listNamespaces = defineOperation({
  id: "listNamespaces",
  method: "GET",
  path: "/api/v1/namespaces",
  summary: "List the namespaces, the default one first",
  tags: ["namespaces"],
  scope: "admin",
  response: {
    kind: "json",
    status: 200,
    description: "The namespaces",
    data: z.array(namespaceEntrySchema),
  },
  errors: [],
});
const createNamespace = defineOperation({
  id: "createNamespace",
  method: "POST",
  path: "/api/v1/namespaces",
  summary: "Create a namespace",
  tags: ["namespaces"],
  scope: "admin",
  body: { kind: "json", schema: namespaceInputSchema, what: "namespace", description: "The namespace" },
  response: { kind: "json", status: 200, description: "The namespace as stored", data: namespaceEntrySchema },
  errors: [400, 409, 503],
});
const getNamespace = defineOperation({
  id: "getNamespace",
  method: "GET",
  path: "/api/v1/namespaces/{name}",
  summary: "Get a namespace",
  tags: ["namespaces"],
  scope: "admin",
  params: z.object({ name: z.string().describe('The namespace\'s name ("" is the default one)') }),
  response: { kind: "json", status: 200, description: "The namespace", data: namespaceEntrySchema },
  errors: [404],
});
const deleteNamespace = defineOperation({
  id: "deleteNamespace",
  method: "DELETE",
  path: "/api/v1/namespaces/{name}",
  summary: "Delete a namespace (with its entries when `cascade=true`; refused when not empty otherwise)",
  tags: ["namespaces"],
  scope: "admin",
  params: z.object({ name: z.string().describe("The namespace's name") }),
  query: z.object({
    cascade: z
      .string()
      .optional()
      .describe("`true`: delete the namespace's tools, resources and prompts too"),
  }),
  response: { kind: "json", status: 200, description: "The namespace deleted", data: namespaceEntrySchema },
  errors: [400, 404, 409, 503],
});

// Capability services
const registerService = defineOperation({
  id: "registerService",
  method: "POST",
  path: "/api/v1/management/discovery",
  summary: "Register a capability service (or register it again: same id)",
  description:
    "A `register` token is enough. A registration is bound to the principal that made it: another one's re-registration, or one under a service name that principal holds, is refused (403).",
  tags: ["capabilities"],
  scope: "register",
  body: {
    kind: "json",
    schema: registrationSchema,
    what: "service registration",
    description: "Where the service listens and what it offers",
  },
  response: {
    kind: "json",
    status: 200,
    description: "The service's target, with the id to heartbeat and deregister with",
    data: registeredServiceSchema.shape.target,
  },
  errors: [400, 403, 409, 503],
});
const deregisterService = defineOperation({
  id: "deregisterService",
  method: "DELETE",
  path: "/api/v1/management/discovery",
  summary: "Deregister a capability service",
  tags: ["capabilities"],
  scope: "register",
  body: {
    kind: "json",
    schema: z.object({
      id: z.string({ error: "must be the service's id" }).min(1, "must be the service's id"),
    }),
    what: "deregistration",
    description: "The service's registration id",
  },
  response: { kind: "json", status: 200, description: "Deregistered", data: z.null() },
  errors: [400, 403, 404, 503],
});
const heartbeat = defineOperation({
  id: "heartbeat",
  method: "POST",
  path: "/api/v1/management/discovery/heartbeats",
  summary: "Tell the router a capability service is alive",
  tags: ["capabilities"],
  scope: "register",
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
  response: { kind: "json", status: 200, description: "Recorded", data: z.null() },
  errors: [400, 403, 404, 503],
});
const listCapabilities = defineOperation({
  id: "listCapabilities",
  method: "GET",
  path: "/api/v1/capabilities",
  summary: "List the registered capability services with their health and last activity",
  tags: ["capabilities"],
  scope: "admin",
  response: {
    kind: "json",
    status: 200,
    description: "The services",
    data: z.array(registeredServiceSchema),
  },
  errors: [503],
});
const capabilitiesStatus = defineOperation({
  id: "capabilitiesStatus",
  method: "GET",
  path: "/api/v1/capabilities/status",
  summary: "How many services are in each health state",
  tags: ["capabilities"],
  scope: "admin",
  response: { kind: "json", status: 200, description: "The counts", data: fleetStatusSchema },
  errors: [],
});
const capabilityCircuits = defineOperation({
  id: "capabilityCircuits",
  method: "GET",
  path: "/api/v1/capabilities/circuits",
  summary: "Each registered service's circuit and calls in flight, on the router process that answers",
  description:
    "Circuits are kept per router process: each replica judges the calls it made, so another replica may answer differently.",
  tags: ["capabilities"],
  scope: "admin",
  response: {
    kind: "json",
    status: 200,
    description: "One entry per registered service",
    data: z.array(serviceCircuitSchema),
  },
  errors: [],
});
const getCapability = defineOperation({
  id: "getCapability",
  method: "GET",
  path: "/api/v1/capabilities/{id}",
  summary: "Get a registered service",
  tags: ["capabilities"],
  scope: "admin",
  params: idParams,
  response: { kind: "json", status: 200, description: "The service", data: registeredServiceSchema },
  errors: [404],
});
const capabilityHealth = defineOperation({
  id: "capabilityHealth",
  method: "GET",
  path: "/api/v1/capabilities/{id}/health",
  summary: "A service's latest health changes, newest first",
  tags: ["capabilities"],
  scope: "admin",
  params: idParams,
  response: {
    kind: "json",
    status: 200,
    description: "The health history",
    data: z.array(healthRecordSchema),
  },
  errors: [400, 503],
});
const removeStaleCapabilities = defineOperation({
  id: "removeStaleCapabilities",
  method: "DELETE",
  path: "/api/v1/capabilities/stale",
  summary: "Remove the services with no sign of life for a while",
  tags: ["capabilities"],
  scope: "admin",
  query: z.object({
    olderThanMs: z
      .string()
      .optional()
      .describe("Milliseconds without a sign of life (default: the router's `staleServiceTtlMs`)"),
  }),
  response: {
    kind: "json",
    status: 200,
    description: "The services removed",
    data: z.array(registeredServiceSchema),
  },
  errors: [400, 503],
});

// Events
const toolCallNotifications = defineOperation({
  id: "toolCallNotifications",
  method: "GET",
  path: "/api/v2/tool-calls/notifications",
  summary: "Stream tool-call events as they happen",
  description:
    "Server-sent events named `started`, `completed` or `failed`; the SSE id is `<eventId>:<type>`, and a client that reconnects with `Last-Event-ID` gets the events it missed first. Events are redacted at their source.",
  tags: ["events"],
  scope: "admin",
  query: z.object({
    toolName: z.string().optional().describe("Only this tool's events"),
    lastEventId: z
      .string()
      .optional()
      .describe("Resume after this SSE id (for clients that cannot send the `Last-Event-ID` header)"),
  }),
  response: { kind: "sse", description: "Tool-call events.", events: toolCallEventSchema },
  errors: [],
});
const toolCallHistory = defineOperation({
  id: "toolCallHistory",
  method: "GET",
  path: "/api/v2/tool-calls/history",
  summary: "The latest tool-call events",
  tags: ["events"],
  scope: "admin",
  query: z.object({
    limit: z.string().optional().describe("How many events at most (a positive integer; default 100)"),
    toolName: z.string().optional().describe("Only this tool's events"),
    type: z.string().optional().describe("Only events of this type: `started`, `completed` or `failed`"),
    namespace: z.string().optional().describe("Only events of calls made in this namespace"),
  }),
  response: {
    kind: "json",
    status: 200,
    description: "The events, oldest first",
    data: z.array(toolCallEventSchema),
  },
  errors: [],
});
const registryEvents = defineOperation({
  id: "registryEvents",
  method: "GET",
  path: "/api/v1/management/events",
  summary: "Stream registry events: registrations, deregistrations, updates and health changes",
  description: "Server-sent events named after the event's type.",
  tags: ["events"],
  scope: "admin",
  response: { kind: "sse", description: "Registry events.", events: registryEventSchema },
  errors: [],
});

// Forwards
const listForwards = defineOperation({
  id: "listForwards",
  method: "GET",
  path: "/api/v1/forwards",
  summary: "List the forwards of a namespace (`namespace=*`: of every namespace) with their import status",
  tags: ["forwards"],
  scope: "admin",
  query: namespaceQuery,
  response: { kind: "json", status: 200, description: "The forwards", data: z.array(forwardViewSchema) },
  errors: [400, 404],
});
const addForward = defineOperation({
  id: "addForward",
  method: "POST",
  path: "/api/v1/forwards",
  summary: "Import an MCP server into a namespace",
  description:
    "Connects to the upstream, saves the forward and imports its catalog. Nothing is saved when the upstream cannot be started, reached or listed.",
  tags: ["forwards"],
  scope: "admin",
  body: {
    kind: "json",
    schema: forwardRequestSchema,
    documented: z.union([forwardSchema, forwardShorthandSchema]),
    what: "forward",
    description: "The forward: its upstream as an object, or in a short form",
  },
  response: {
    kind: "json",
    status: 201,
    description: "The forward, its upstream without secrets",
    data: forwardViewSchema,
  },
  errors: [400, 404, 409, 502, 503],
});
const getForward = defineOperation({
  id: "getForward",
  method: "GET",
  path: "/api/v1/forwards/{name}",
  summary: "Get a forward with its import status",
  tags: ["forwards"],
  scope: "admin",
  params: nameParams,
  query: namespaceQuery,
  response: { kind: "json", status: 200, description: "The forward", data: forwardViewSchema },
  errors: [404],
});
const updateForward = defineOperation({
  id: "updateForward",
  method: "PUT",
  path: "/api/v1/forwards/{name}",
  summary: "Change a forward's upstream, prefix, description or labels",
  description:
    "Connects to the new upstream first: nothing changes when that fails. Entries the new import no longer holds are removed.",
  tags: ["forwards"],
  scope: "admin",
  params: nameParams,
  query: namespaceQuery,
  body: {
    kind: "json",
    schema: forwardRequestSchema,
    documented: z.union([forwardSchema, forwardShorthandSchema]),
    what: "forward",
    description: "The forward's new value",
  },
  response: { kind: "json", status: 200, description: "The forward", data: forwardViewSchema },
  errors: [400, 404, 409, 502, 503],
});
const removeForward = defineOperation({
  id: "removeForward",
  method: "DELETE",
  path: "/api/v1/forwards/{name}",
  summary: "Remove a forward and every entry it imported",
  tags: ["forwards"],
  scope: "admin",
  params: nameParams,
  query: namespaceQuery,
  response: { kind: "json", status: 200, description: "The forward removed", data: forwardViewSchema },
  errors: [404, 503],
});
const refreshForward = defineOperation({
  id: "refreshForward",
  method: "POST",
  path: "/api/v1/forwards/{name}/refresh",
  summary: "List the upstream's catalog again and re-import it",
  tags: ["forwards"],
  scope: "admin",
  params: nameParams,
  query: namespaceQuery,
  response: { kind: "json", status: 200, description: "The forward", data: forwardViewSchema },
  errors: [404, 502, 503],
});

// Code execution
const startCodeExecution = defineOperation({
  id: "startCodeExecution",
  method: "POST",
  path: "/api/v2/code-execution-engine/{engine}/{language}",
  summary: "Start running code on an engine",
  description: "Answers at once with a task id; read the output from the task's stream.",
  tags: ["code execution"],
  scope: "admin",
  params: z.object({
    engine: z.string().min(1).describe("The engine type"),
    language: z.string().min(1).describe("The language"),
  }),
  body: {
    kind: "json",
    schema: codeExecutionRequestSchema,
    what: "code execution request",
    description: "The code and how to run it",
  },
  response: { kind: "json", status: 202, description: "The task", data: codeExecutionTaskSchema },
  errors: [400],
});
const codeExecutionStream = defineOperation({
  id: "codeExecutionStream",
  method: "GET",
  path: "/api/v2/code-execution-engine/tasks/{id}/stream",
  summary: "Stream a code execution task's output",
  description:
    "Server-sent events: `reply` (an output), `error` (the run failed), `dropped` (replies lost before the stream was opened), then `end`. A task's stream can be read once.",
  tags: ["code execution"],
  scope: "admin",
  params: z.object({ id: z.string().min(1).describe("The task id") }),
  response: { kind: "sse", description: "The task's output.", events: codeExecutionEventSchema },
  errors: [404, 409],
});

// The document itself
const openApiDocument = defineOperation({
  id: "openApiDocument",
  method: "GET",
  path: "/api/openapi.json",
  summary: "This API's OpenAPI 3.1 document",
  tags: ["meta"],
  scope: "admin",
  response: {
    kind: "json",
    status: 200,
    description: "The document itself, without the envelope, so that OpenAPI tools load it by its URL",
    data: z.record(z.string(), z.unknown()),
    bare: true,
  },
  errors: [],
});

/**
 * Every operation of the management API, by `operationId`. Each holds its method, path and the zod schemas of its
 * path parameters, query, body and answer's `data`: a typed client takes its types from these
 * (`z.input<typeof managementApi.addTool.body.schema>`, `z.output<typeof managementApi.listTools.response.data>`).
 */
export const managementApi = {
  listTools: tools.list,
  addTool: tools.add,
  addToolWithPayload: payloadOperation(toolKind, "addToolWithPayload"),
  removeTools: tools.removeMatching,
  getTool: tools.get,
  updateTool: tools.update,
  removeTool: tools.remove,
  listResources: resources.list,
  addResource: resources.add,
  addResourceWithPayload: payloadOperation(resourceKind, "addResourceWithPayload"),
  removeResources: resources.removeMatching,
  getResource: resources.get,
  updateResource: resources.update,
  removeResource: resources.remove,
  listPrompts: prompts.list,
  addPrompt: prompts.add,
  removePrompts: prompts.removeMatching,
  getPrompt: prompts.get,
  updatePrompt: prompts.update,
  removePrompt: prompts.remove,
  listNamespaces,
  createNamespace,
  getNamespace,
  deleteNamespace,
  registerService,
  deregisterService,
  heartbeat,
  listCapabilities,
  capabilitiesStatus,
  capabilityCircuits,
  getCapability,
  capabilityHealth,
  removeStaleCapabilities,
  toolCallNotifications,
  toolCallHistory,
  registryEvents,
  listForwards,
  addForward,
  getForward,
  updateForward,
  removeForward,
  refreshForward,
  startCodeExecution,
  codeExecutionStream,
  openApiDocument,
} as const;

/** The name of a management API operation. */
export type ManagementOperationId = keyof typeof managementApi;
