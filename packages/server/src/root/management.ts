import type { Registry } from "@trestle/registry";
import type { RouterConfig } from "../config.js";
import { createJsonApi, type JsonApi } from "../http/json-api.js";
import { registerCatalogRoutes } from "../management/catalog-routes.js";
import { registerCodeExecutionRoutes } from "../management/code-execution-routes.js";
import { registerDiscoveryRoutes } from "../management/discovery-routes.js";
import { MANAGEMENT_API_INFO, registerDocumentRoute } from "../management/document-route.js";
import { registerEventRoutes } from "../management/event-routes.js";
import { registerForwardRoutes } from "../management/forward-routes.js";
import type { CallsModule } from "./calls.js";
import type { ForwardsModule } from "./forwards.js";
import type { RouterSecurity } from "./router-security.js";

/** The management API (Hono, OpenAPI): its routes, and what closes with it (code runs nobody read). */
export interface ManagementModule {
  readonly api: JsonApi;
  close(): void;
}

/**
 * The Wanaku-compatible management API: registration (under the router's registration policy), the catalog,
 * events and their streams, forwards, code execution (through the call service, as the request's principal), and
 * the OpenAPI document.
 */
export function createManagementModule(
  config: RouterConfig,
  deps: {
    registry: Registry;
    calls: CallsModule;
    forwards: ForwardsModule;
    security: RouterSecurity;
    /** The built-in services' names: they register shortly after the router starts. */
    builtinServiceNames?: readonly string[];
    onStreamDropped: (stream: string, bufferedBytes: number) => void;
  },
): ManagementModule {
  const api = createJsonApi({ maxBodyBytes: config.maxBodyBytes, info: MANAGEMENT_API_INFO });
  // The built-ins' names are theirs from the start: a register token cannot claim one before they register.
  registerDiscoveryRoutes(api, { registry: deps.registry, policy: deps.security.policy });
  registerCatalogRoutes(api, {
    registry: deps.registry,
    invoker: deps.calls.invoker,
    resources: deps.calls.resources,
    // A tool of these services is not a slip before they register: configured ones, and the built-ins.
    expectedServiceNames: () => [...Object.keys(config.services), ...(deps.builtinServiceNames ?? [])],
  });
  registerEventRoutes(api, {
    events: deps.calls.events,
    registry: deps.registry,
    sseMaxBufferedBytes: config.sseMaxBufferedBytes,
    onSubscriberDropped: deps.onStreamDropped,
  });
  registerForwardRoutes(api, { forwards: deps.forwards.service });
  const codeExecution = registerCodeExecutionRoutes(api, { calls: deps.calls.calls });
  registerDocumentRoute(api);
  return { api, close: () => codeExecution.close() };
}
