import type { InvokerBridge, ResourceBridge } from "@trestle/bridge";
import { Code, type ResourcePayload, type ToolPayload, TrestleError } from "@trestle/core";
import {
  DEFAULT_NAMESPACE,
  normalizeNamespace,
  parseResource,
  parseTool,
  type Registry,
} from "@trestle/registry";
import type { JsonApi } from "../http/json-api.js";

function namespaceOf(query: URLSearchParams): string {
  return query.get("namespace") ?? "";
}

function labelFilterOf(query: URLSearchParams): string | undefined {
  const filter = query.get("labelFilter") ?? query.get("labels");
  return filter && filter.trim().length > 0 ? filter : undefined;
}

function objectBody(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TrestleError(`The body must be a JSON object (a ${what})`, Code.InvalidArgument);
  }
  return value as Record<string, unknown>;
}

function payloadBody(
  value: unknown,
  what: string,
): { payload: Record<string, unknown>; configurationData: string; secretsData: string } {
  const body = objectBody(value, `${what} payload`);
  const payload = objectBody(body.payload, what);
  for (const field of ["configurationData", "secretsData"] as const) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== "string") {
      throw new TrestleError(`'${field}' must be a string`, Code.InvalidArgument);
    }
  }
  return {
    payload,
    configurationData: (body.configurationData as string | undefined) ?? "",
    secretsData: (body.secretsData as string | undefined) ?? "",
  };
}

function alreadyExists(what: string, namespace: string): TrestleError {
  const where = namespace === DEFAULT_NAMESPACE ? "the default namespace" : `namespace '${namespace}'`;
  return new TrestleError(`${what} already exists in ${where}`, Code.AlreadyExists);
}

/**
 * Names being provisioned right now, so that two requests for the same entry cannot both pass the duplicate
 * check and both reach the capability: the second is refused at once, as a duplicate.
 */
function createProvisioningGate() {
  const busy = new Set<string>();
  return {
    async exclusively<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
      if (keys.some((key) => busy.has(key))) {
        throw new TrestleError("The same entry is being provisioned by another request", Code.AlreadyExists);
      }
      for (const key of keys) busy.add(key);
      try {
        return await work();
      } finally {
        for (const key of keys) busy.delete(key);
      }
    },
  };
}

/**
 * Tools, resources, prompts and namespaces, on Wanaku's paths: list (with `labelFilter` and `namespace`), add,
 * get, update, remove, remove by label filter, and add with provisioning (`payloads`).
 *
 * A `payloads` request is validated, and checked against the catalog (namespace, name, location), before the
 * capability is asked to provision anything: a request the catalog would refuse never writes a file.
 */
export function registerCatalogRoutes(
  api: JsonApi,
  deps: { registry: Registry; invoker: InvokerBridge; resources: ResourceBridge },
): void {
  const { catalog } = deps.registry;
  const provisioning = createProvisioningGate();

  /** The entry's namespace, normalised, when it exists. @throws TrestleError `NotFound`, `InvalidArgument`. */
  const existingNamespace = (name: string | undefined): string => {
    const namespace = normalizeNamespace(name);
    if (namespace !== DEFAULT_NAMESPACE && !catalog.getNamespace(namespace)) {
      throw new TrestleError(`Namespace '${namespace}' does not exist`, Code.NotFound);
    }
    return namespace;
  };

  // Tools
  api.route("GET", "/api/v1/tools", ({ query }) => ({
    data: catalog.listTools(namespaceOf(query), labelFilterOf(query)),
  }));
  api.route("POST", "/api/v1/tools", async (r) => ({
    status: 200,
    data: await catalog.addTool((await r.json()) as never),
  }));
  api.route("POST", "/api/v1/tools/payloads", async (r) => {
    const body = payloadBody(await r.json(), "tool");
    // Everything the catalog would refuse is refused before provisioning: a refused request writes nothing.
    const tool = parseTool(body.payload);
    const namespace = existingNamespace(tool.namespace);
    if (catalog.getTool(namespace, tool.name)) throw alreadyExists(`A tool named '${tool.name}'`, namespace);
    return provisioning.exclusively([`tool:${namespace}:${tool.name}`], async () => {
      const provisioned = await deps.invoker.provision({ ...body, payload: tool } as ToolPayload);
      return { data: await catalog.addTool(provisioned) };
    });
  });
  api.route("DELETE", "/api/v1/tools", async ({ query }) => {
    const filter = labelFilterOf(query);
    if (!filter) throw new TrestleError("Removing tools in bulk needs a labelFilter", Code.InvalidArgument);
    return { data: await catalog.removeTools(namespaceOf(query), filter) };
  });
  api.route("GET", "/api/v1/tools/:name", ({ params, query }) => {
    const tool = catalog.getTool(namespaceOf(query), params.name as string);
    if (!tool) throw new TrestleError(`No tool named '${params.name}'`, Code.NotFound);
    return { data: tool };
  });
  api.route("PUT", "/api/v1/tools/:name", async (r) => {
    const body = objectBody(await r.json(), "tool");
    return { data: await catalog.updateTool(namespaceOf(r.query), r.params.name as string, body as never) };
  });
  api.route("DELETE", "/api/v1/tools/:name", async ({ params, query }) => ({
    data: await catalog.removeTool(namespaceOf(query), params.name as string),
  }));

  // Resources (Wanaku addresses them by name; the catalog keys them by location)
  const resourceNamed = (namespace: string, name: string) => {
    const resource = catalog.getResourceByName(namespace, name);
    if (!resource) throw new TrestleError(`No resource named '${name}'`, Code.NotFound);
    return resource;
  };
  api.route("GET", "/api/v1/resources", ({ query }) => ({
    data: catalog.listResources(namespaceOf(query), labelFilterOf(query)),
  }));
  api.route("POST", "/api/v1/resources", async (r) => ({
    data: await catalog.addResource((await r.json()) as never),
  }));
  api.route("POST", "/api/v1/resources/payloads", async (r) => {
    const body = payloadBody(await r.json(), "resource");
    const resource = parseResource(body.payload);
    const namespace = existingNamespace(resource.namespace);
    if (catalog.getResourceByName(namespace, resource.name)) {
      throw alreadyExists(`A resource named '${resource.name}'`, namespace);
    }
    if (catalog.getResource(namespace, resource.location)) {
      throw alreadyExists(`A resource at location '${resource.location}'`, namespace);
    }
    const keys = [`resource:${namespace}:${resource.name}`, `location:${namespace}:${resource.location}`];
    return provisioning.exclusively(keys, async () => {
      const provisioned = await deps.resources.provision({ ...body, payload: resource } as ResourcePayload);
      return { data: await catalog.addResource(provisioned) };
    });
  });
  api.route("DELETE", "/api/v1/resources", async ({ query }) => {
    const filter = labelFilterOf(query);
    if (!filter)
      throw new TrestleError("Removing resources in bulk needs a labelFilter", Code.InvalidArgument);
    return { data: await catalog.removeResources(namespaceOf(query), filter) };
  });
  api.route("GET", "/api/v1/resources/:name", ({ params, query }) => ({
    data: resourceNamed(namespaceOf(query), params.name as string),
  }));
  api.route("PUT", "/api/v1/resources/:name", async (r) => {
    const ns = namespaceOf(r.query);
    const current = resourceNamed(ns, r.params.name as string);
    const body = objectBody(await r.json(), "resource");
    return { data: await catalog.updateResource(ns, current.location, body as never) };
  });
  api.route("DELETE", "/api/v1/resources/:name", async ({ params, query }) => {
    const ns = namespaceOf(query);
    return { data: await catalog.removeResource(ns, resourceNamed(ns, params.name as string).location) };
  });

  // Prompts
  api.route("GET", "/api/v1/prompts", ({ query }) => ({
    data: catalog.listPrompts(namespaceOf(query), labelFilterOf(query)),
  }));
  api.route("POST", "/api/v1/prompts", async (r) => ({
    data: await catalog.addPrompt((await r.json()) as never),
  }));
  api.route("DELETE", "/api/v1/prompts", async ({ query }) => {
    const filter = labelFilterOf(query);
    if (!filter) throw new TrestleError("Removing prompts in bulk needs a labelFilter", Code.InvalidArgument);
    return { data: await catalog.removePrompts(namespaceOf(query), filter) };
  });
  api.route("GET", "/api/v1/prompts/:name", ({ params, query }) => {
    const prompt = catalog.getPrompt(namespaceOf(query), params.name as string);
    if (!prompt) throw new TrestleError(`No prompt named '${params.name}'`, Code.NotFound);
    return { data: prompt };
  });
  api.route("PUT", "/api/v1/prompts/:name", async (r) => ({
    data: await catalog.updatePrompt(
      namespaceOf(r.query),
      r.params.name as string,
      objectBody(await r.json(), "prompt") as never,
    ),
  }));
  api.route("DELETE", "/api/v1/prompts/:name", async ({ params, query }) => ({
    data: await catalog.removePrompt(namespaceOf(query), params.name as string),
  }));

  // Namespaces
  api.route("GET", "/api/v1/namespaces", () => ({ data: catalog.listNamespaces() }));
  api.route("POST", "/api/v1/namespaces", async (r) => ({
    data: await catalog.createNamespace((await r.json()) as never),
  }));
  api.route("GET", "/api/v1/namespaces/:name", ({ params }) => {
    const ns = catalog.getNamespace(params.name as string);
    if (!ns) throw new TrestleError(`No namespace named '${params.name}'`, Code.NotFound);
    return { data: ns };
  });
  api.route("DELETE", "/api/v1/namespaces/:name", async ({ params, query }) => ({
    data: await catalog.deleteNamespace(params.name as string, { cascade: query.get("cascade") === "true" }),
  }));
}
