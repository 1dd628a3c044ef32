import type { InvokerBridge, ResourceBridge } from "@trestle/bridge";
import { Code, TrestleError } from "@trestle/core";
import { DEFAULT_NAMESPACE, normalizeNamespace, type Registry } from "@trestle/registry";
import type { JsonApi } from "../http/json-api.js";
import { managementApi as op } from "./operations.js";
import { type ServabilityDeps, servabilityWarnings } from "./servability.js";

/** `labelFilter` (or Wanaku's older `labels`), when it says something. */
function labelFilterOf(query: {
  labelFilter?: string | undefined;
  labels?: string | undefined;
}): string | undefined {
  const filter = query.labelFilter ?? query.labels;
  return filter && filter.trim().length > 0 ? filter : undefined;
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
  deps: {
    registry: Registry;
    invoker: InvokerBridge;
    resources: ResourceBridge;
    expectedServiceNames?: ServabilityDeps["expectedServiceNames"];
  },
): void {
  const { catalog } = deps.registry;
  const servability: ServabilityDeps = {
    registry: deps.registry,
    expectedServiceNames: deps.expectedServiceNames ?? (() => []),
  };
  /** An added or changed entry, with a warning when its service cannot serve it now. */
  const answered = <E extends { name: string; type: string }>(what: "tool" | "resource", entry: E) => ({
    data: entry,
    warnings: servabilityWarnings(servability, what, entry.name, entry.type),
  });
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
  api.route(op.listTools, ({ query }) => ({
    data: catalog.listTools(query.namespace ?? "", labelFilterOf(query)),
  }));
  api.route(op.addTool, async ({ body }) => answered("tool", await catalog.addTool(body)));
  api.route(op.addToolWithPayload, async ({ body }) => {
    // Everything the catalog would refuse is refused before provisioning: a refused request writes nothing.
    const tool = body.payload;
    const namespace = existingNamespace(tool.namespace);
    if (catalog.getTool(namespace, tool.name)) throw alreadyExists(`A tool named '${tool.name}'`, namespace);
    return provisioning.exclusively([`tool:${namespace}:${tool.name}`], async () => {
      const provisioned = await deps.invoker.provision({
        payload: tool,
        configurationData: body.configurationData ?? "",
        secretsData: body.secretsData ?? "",
      });
      return answered("tool", await catalog.addTool(provisioned));
    });
  });
  api.route(op.removeTools, async ({ query }) => {
    const filter = labelFilterOf(query);
    if (!filter) throw new TrestleError("Removing tools in bulk needs a labelFilter", Code.InvalidArgument);
    return { data: await catalog.removeTools(query.namespace ?? "", filter) };
  });
  api.route(op.getTool, ({ params, query }) => {
    const tool = catalog.getTool(query.namespace ?? "", params.name);
    if (!tool) throw new TrestleError(`No tool named '${params.name}'`, Code.NotFound);
    return { data: tool };
  });
  api.route(op.updateTool, async ({ params, query, body }) =>
    answered("tool", await catalog.updateTool(query.namespace ?? "", params.name, body)),
  );
  api.route(op.removeTool, async ({ params, query }) => ({
    data: await catalog.removeTool(query.namespace ?? "", params.name),
  }));

  // Resources (Wanaku addresses them by name; the catalog keys them by location)
  const resourceNamed = (namespace: string, name: string) => {
    const resource = catalog.getResourceByName(namespace, name);
    if (!resource) throw new TrestleError(`No resource named '${name}'`, Code.NotFound);
    return resource;
  };
  api.route(op.listResources, ({ query }) => ({
    data: catalog.listResources(query.namespace ?? "", labelFilterOf(query)),
  }));
  api.route(op.addResource, async ({ body }) => answered("resource", await catalog.addResource(body)));
  api.route(op.addResourceWithPayload, async ({ body }) => {
    const resource = body.payload;
    const namespace = existingNamespace(resource.namespace);
    if (catalog.getResourceByName(namespace, resource.name)) {
      throw alreadyExists(`A resource named '${resource.name}'`, namespace);
    }
    if (catalog.getResource(namespace, resource.location)) {
      throw alreadyExists(`A resource at location '${resource.location}'`, namespace);
    }
    const keys = [`resource:${namespace}:${resource.name}`, `location:${namespace}:${resource.location}`];
    return provisioning.exclusively(keys, async () => {
      const provisioned = await deps.resources.provision({
        payload: resource,
        configurationData: body.configurationData ?? "",
        secretsData: body.secretsData ?? "",
      });
      return { data: await catalog.addResource(provisioned) };
    });
  });
  api.route(op.removeResources, async ({ query }) => {
    const filter = labelFilterOf(query);
    if (!filter)
      throw new TrestleError("Removing resources in bulk needs a labelFilter", Code.InvalidArgument);
    return { data: await catalog.removeResources(query.namespace ?? "", filter) };
  });
  api.route(op.getResource, ({ params, query }) => ({
    data: resourceNamed(query.namespace ?? "", params.name),
  }));
  api.route(op.updateResource, async ({ params, query, body }) => {
    const ns = query.namespace ?? "";
    const current = resourceNamed(ns, params.name);
    return answered("resource", await catalog.updateResource(ns, current.location, body));
  });
  api.route(op.removeResource, async ({ params, query }) => {
    const ns = query.namespace ?? "";
    return { data: await catalog.removeResource(ns, resourceNamed(ns, params.name).location) };
  });

  // Prompts
  api.route(op.listPrompts, ({ query }) => ({
    data: catalog.listPrompts(query.namespace ?? "", labelFilterOf(query)),
  }));
  api.route(op.addPrompt, async ({ body }) => ({ data: await catalog.addPrompt(body) }));
  api.route(op.removePrompts, async ({ query }) => {
    const filter = labelFilterOf(query);
    if (!filter) throw new TrestleError("Removing prompts in bulk needs a labelFilter", Code.InvalidArgument);
    return { data: await catalog.removePrompts(query.namespace ?? "", filter) };
  });
  api.route(op.getPrompt, ({ params, query }) => {
    const prompt = catalog.getPrompt(query.namespace ?? "", params.name);
    if (!prompt) throw new TrestleError(`No prompt named '${params.name}'`, Code.NotFound);
    return { data: prompt };
  });
  api.route(op.updatePrompt, async ({ params, query, body }) => ({
    data: await catalog.updatePrompt(query.namespace ?? "", params.name, body),
  }));
  api.route(op.removePrompt, async ({ params, query }) => ({
    data: await catalog.removePrompt(query.namespace ?? "", params.name),
  }));

  // Namespaces
  api.route(op.listNamespaces, () => ({ data: catalog.listNamespaces() }));
  api.route(op.createNamespace, async ({ body }) => ({ data: await catalog.createNamespace(body) }));
  api.route(op.getNamespace, ({ params }) => {
    const ns = catalog.getNamespace(params.name);
    if (!ns) throw new TrestleError(`No namespace named '${params.name}'`, Code.NotFound);
    return { data: ns };
  });
  api.route(op.deleteNamespace, async ({ params, query }) => ({
    data: await catalog.deleteNamespace(params.name, { cascade: query.cascade === "true" }),
  }));
}
