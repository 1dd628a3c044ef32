/** One operation of the management API: its HTTP method and its path, as the OpenAPI document writes it. */
export interface ManagementOperation {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** The path template, `{name}` for a path parameter. */
  readonly path: string;
}

/**
 * Every operation the management client calls, by name. The client builds each request from this table and
 * nothing else, so a test can hold the whole table against the router's OpenAPI document.
 */
export const managementOperations = {
  listTools: { method: "GET", path: "/api/v1/tools" },
  addTool: { method: "POST", path: "/api/v1/tools" },
  provisionTool: { method: "POST", path: "/api/v1/tools/payloads" },
  removeToolsMatching: { method: "DELETE", path: "/api/v1/tools" },
  getTool: { method: "GET", path: "/api/v1/tools/{name}" },
  updateTool: { method: "PUT", path: "/api/v1/tools/{name}" },
  removeTool: { method: "DELETE", path: "/api/v1/tools/{name}" },

  listResources: { method: "GET", path: "/api/v1/resources" },
  addResource: { method: "POST", path: "/api/v1/resources" },
  provisionResource: { method: "POST", path: "/api/v1/resources/payloads" },
  removeResourcesMatching: { method: "DELETE", path: "/api/v1/resources" },
  getResource: { method: "GET", path: "/api/v1/resources/{name}" },
  updateResource: { method: "PUT", path: "/api/v1/resources/{name}" },
  removeResource: { method: "DELETE", path: "/api/v1/resources/{name}" },

  listPrompts: { method: "GET", path: "/api/v1/prompts" },
  addPrompt: { method: "POST", path: "/api/v1/prompts" },
  removePromptsMatching: { method: "DELETE", path: "/api/v1/prompts" },
  getPrompt: { method: "GET", path: "/api/v1/prompts/{name}" },
  updatePrompt: { method: "PUT", path: "/api/v1/prompts/{name}" },
  removePrompt: { method: "DELETE", path: "/api/v1/prompts/{name}" },

  listNamespaces: { method: "GET", path: "/api/v1/namespaces" },
  createNamespace: { method: "POST", path: "/api/v1/namespaces" },
  getNamespace: { method: "GET", path: "/api/v1/namespaces/{name}" },
  deleteNamespace: { method: "DELETE", path: "/api/v1/namespaces/{name}" },

  listForwards: { method: "GET", path: "/api/v1/forwards" },
  addForward: { method: "POST", path: "/api/v1/forwards" },
  getForward: { method: "GET", path: "/api/v1/forwards/{name}" },
  updateForward: { method: "PUT", path: "/api/v1/forwards/{name}" },
  removeForward: { method: "DELETE", path: "/api/v1/forwards/{name}" },
  refreshForward: { method: "POST", path: "/api/v1/forwards/{name}/refresh" },

  register: { method: "POST", path: "/api/v1/management/discovery" },
  deregister: { method: "DELETE", path: "/api/v1/management/discovery" },
  heartbeat: { method: "POST", path: "/api/v1/management/discovery/heartbeats" },
  listServices: { method: "GET", path: "/api/v1/capabilities" },
  serviceStatus: { method: "GET", path: "/api/v1/capabilities/status" },
  getService: { method: "GET", path: "/api/v1/capabilities/{id}" },
  serviceHealth: { method: "GET", path: "/api/v1/capabilities/{id}/health" },
  removeStaleServices: { method: "DELETE", path: "/api/v1/capabilities/stale" },

  startCodeExecution: { method: "POST", path: "/api/v2/code-execution-engine/{engine}/{language}" },
  streamCodeExecution: { method: "GET", path: "/api/v2/code-execution-engine/tasks/{id}/stream" },

  toolCallEvents: { method: "GET", path: "/api/v2/tool-calls/notifications" },
  toolCallHistory: { method: "GET", path: "/api/v2/tool-calls/history" },
  registryEvents: { method: "GET", path: "/api/v1/management/events" },

  openApiDocument: { method: "GET", path: "/api/openapi.json" },
} as const satisfies Record<string, ManagementOperation>;

/** The name of an operation in {@link managementOperations}. */
export type ManagementOperationName = keyof typeof managementOperations;

/** The operation's path with its parameters filled in (each encoded as one path segment). */
export function operationPath(operation: ManagementOperation, params: Record<string, string> = {}): string {
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`The path ${operation.path} needs '${name}'`);
    return encodeURIComponent(value);
  });
}
