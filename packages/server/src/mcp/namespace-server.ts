import { randomBytes } from "node:crypto";
import { InitializeRequestSchema, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createClientLegs, isUriTemplate } from "@trestle/bridge";
import {
  type McpMethodTable,
  type McpRequestHandler,
  onRequest,
  type RequestOrigin,
} from "./method-table.js";
import {
  createNamespaceScope,
  type McpBackend,
  type McpSettings,
  type NamespaceScope,
} from "./namespace-scope.js";
import { createParkedCalls } from "./parked-calls.js";
import { registerPromptMethods } from "./prompt-methods.js";
import { negotiateLegacyRevision } from "./protocol-era.js";
import { createRequestStateSealer } from "./request-state.js";
import { registerResourceMethods } from "./resource-methods.js";
import type { LogLevel } from "./session-registry.js";
import { declaresTasks, TASKS_EXTENSION, tasksRequired } from "./tasks.js";
import { registerToolMethods } from "./tool-methods.js";
import { revisionOf } from "./wire/revisions.js";
import { encodeDiscoverResult, encodeInitializeResult } from "./wire/server-info.js";
import type { McpServerCapabilities } from "./wire/types.js";

export type {
  McpMethodTable,
  McpRequestExtra,
  McpRequestHandler,
  RequestOrigin,
} from "./method-table.js";
export {
  DEFAULT_MAX_RESOURCE_URI_LENGTH,
  type McpBackend,
  type McpForwards,
  type McpSettings,
} from "./namespace-scope.js";

/**
 * What the router serves in `namespace` now, narrowed to what every forward's upstream offers (the
 * intersection, never the union): a stateless client hears of changes on `subscriptions/listen`, a session where
 * its transport can deliver them.
 */
function capabilitiesOf(
  scope: NamespaceScope,
  origin: RequestOrigin,
  modern: boolean,
): McpServerCapabilities {
  const { backend, settings } = scope;
  const listChanged = modern || settings.listChangedDelivered;
  const caps: McpServerCapabilities = { tools: { listChanged }, logging: {} };
  // The catalog as the asking principal may see it.
  const resources = backend.calls.listResources(origin);
  const prompts = backend.calls.listPrompts(origin);
  if (resources.length > 0 || backend.canServeResources(scope.namespace)) {
    // Subscriptions: a session subscribes with resources/subscribe, a stateless client on subscriptions/listen.
    caps.resources = { listChanged, subscribe: true };
  }
  // Prompts are always served (an empty list until one is added at run time, which list_changed then tells).
  caps.prompts = { listChanged };
  // Completion is offered where there is something to complete: prompt arguments or resource templates.
  if (
    prompts.some((p) => (p.arguments ?? []).length > 0) ||
    resources.some((r) => isUriTemplate(r.location))
  ) {
    caps.completions = {};
  }
  for (const capability of ["tools", "resources", "prompts", "logging", "completions"] as const) {
    if (caps[capability] !== undefined && scope.lackingForward(capability) !== undefined)
      delete caps[capability];
  }
  return caps;
}

/**
 * The method table that serves one namespace: initialize and discovery, ping, logging, the tools, resources and
 * prompts the call service lets each request's principal see, and MCP tasks. Both transports dispatch to it (see
 * `McpDispatcher`); nothing in between parses a request, and nothing here calls a backend but the call service.
 */
export function createNamespaceMethods(
  namespace: string,
  backend: McpBackend,
  settings: McpSettings,
): McpMethodTable {
  const table = new Map<string, McpRequestHandler>();
  const scope = createNamespaceScope(namespace, backend, settings, {
    requestStates: createRequestStateSealer(settings.requestStateKey ?? randomBytes(32)),
    parkedCalls: createParkedCalls({ holdMs: 10 * 60_000, maxHeld: 1_000 }),
    // One frozen client leg per revision, shared by the calls' translation reports (the history keeps a thousand).
    clientLeg: createClientLegs(),
  });

  // The router advertises what it can serve for this namespace now, and names itself.
  const instructions =
    `Trestle MCP router${namespace ? `, namespace '${namespace}'` : ""}: tools, resources and prompts here are served by ` +
    "capability services behind the router.";

  onRequest(table, "initialize", InitializeRequestSchema, (request, extra) => {
    const protocolVersion = negotiateLegacyRevision(
      request.params.protocolVersion,
      settings.acceptedRevisions,
    );
    const session = extra.origin.session;
    // An HTTP session got both when it was created; a stdio connection's session gets them now.
    if (session && session.protocolVersion === undefined) {
      session.protocolVersion = protocolVersion;
      session.clientCapabilities = { ...request.params.capabilities };
    }
    // In the revision it negotiated, which the request itself did not yet speak.
    return encodeInitializeResult(
      {
        protocolVersion,
        capabilities: capabilitiesOf(scope, extra.origin, false),
        serverInfo: settings.serverInfo,
        instructions,
      },
      revisionOf(protocolVersion),
    ).value;
  });

  // The stateless era's handshake-free discovery: the revisions, what this namespace serves now, who serves it.
  table.set(
    "server/discover",
    (_request, extra) =>
      encodeDiscoverResult(
        {
          supportedVersions: [...settings.acceptedRevisions].reverse(),
          capabilities: {
            ...capabilitiesOf(scope, extra.origin, true),
            ...(backend.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
          },
          serverInfo: settings.serverInfo,
          instructions,
          ttlMs: settings.caching.listTtlMs,
          cacheScope: settings.caching.cacheScope,
        },
        extra.origin.revision,
      ).value,
  );

  onRequest(table, "logging/setLevel", SetLevelRequestSchema, (request, extra) => {
    scope.requireCapability("logging", "logging/setLevel");
    const session = extra.origin.session;
    if (session) session.logLevel = request.params.level as LogLevel;
    return {};
  });

  registerToolMethods(table, scope);
  registerResourceMethods(table, scope);
  registerPromptMethods(table, scope);

  // The tasks extension (stateless clients only): tasks of this namespace and of the asking principal.
  if (backend.tasks) {
    const tasks = backend.tasks;
    // Only a client that declares the extension may use its methods (-32021 naming it otherwise).
    const owner = (origin: RequestOrigin) => {
      if (!declaresTasks(origin.modern?.capabilities)) throw tasksRequired();
      return { namespace, principal: origin.principal.id };
    };
    const params = (request: { params?: unknown }) => (request.params ?? {}) as Record<string, unknown>;
    table.set("tasks/get", (request, extra) => tasks.get(owner(extra.origin), params(request).taskId));
    table.set("tasks/update", async (request, extra) => {
      await tasks.update(owner(extra.origin), params(request).taskId, params(request).inputResponses);
      return {};
    });
    table.set("tasks/cancel", async (request, extra) => {
      await tasks.cancel(owner(extra.origin), params(request).taskId);
      return {};
    });
  }

  table.set("ping", () => ({}));
  return table;
}
