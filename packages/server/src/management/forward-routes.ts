import { Code, TrestleError } from "@trestle/core";
import { parseForward } from "@trestle/registry";
import type { ForwardService } from "../forwards/forward-service.js";
import type { JsonApi } from "../http/json-api.js";

function namespaceOf(query: URLSearchParams): string {
  return query.get("namespace") ?? "";
}

/**
 * Forwards (existing MCP servers imported into a namespace):
 * - `GET /api/v1/forwards?namespace=` (`namespace=*` for all) lists them with their import status;
 * - `POST /api/v1/forwards` connects to the upstream, saves the forward and imports its catalog (201); nothing
 *   is saved when the upstream cannot be started, reached or listed;
 * - `GET /api/v1/forwards/{name}`, `PUT /api/v1/forwards/{name}` (new upstream, prefix, description or labels:
 *   connected first, nothing changed when that fails), `DELETE /api/v1/forwards/{name}` (removes what it imported too),
 *   `POST /api/v1/forwards/{name}/refresh` (lists the upstream again and re-imports).
 *
 * Answers never show a forward's arguments, environment values or header values.
 */
export function registerForwardRoutes(api: JsonApi, deps: { forwards: ForwardService }): void {
  const { forwards } = deps;
  api.route("GET", "/api/v1/forwards", ({ query }) => ({ data: forwards.list(namespaceOf(query)) }));
  api.route("POST", "/api/v1/forwards", async (r) => ({
    status: 201,
    data: await forwards.add(parseForward(await r.json())),
  }));
  api.route("GET", "/api/v1/forwards/:name", ({ params, query }) => {
    const namespace = namespaceOf(query);
    const found = forwards.get(namespace, params.name as string);
    if (!found) {
      throw new TrestleError(
        `No forward named '${params.name}' exists in ${namespace ? `namespace '${namespace}'` : "the default namespace"}`,
        Code.NotFound,
      );
    }
    return { data: found };
  });
  api.route("PUT", "/api/v1/forwards/:name", async (r) => ({
    data: await forwards.update(namespaceOf(r.query), r.params.name as string, parseForward(await r.json())),
  }));
  api.route("DELETE", "/api/v1/forwards/:name", async ({ params, query }) => ({
    data: await forwards.remove(namespaceOf(query), params.name as string),
  }));
  api.route("POST", "/api/v1/forwards/:name/refresh", async ({ params, query }) => ({
    data: await forwards.refresh(namespaceOf(query), params.name as string),
  }));
}
