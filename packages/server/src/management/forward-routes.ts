import { Code, TrestleError } from "@trestle/core";
import type { ForwardService } from "../forwards/forward-service.js";
import type { JsonApi } from "../http/json-api.js";
import { managementApi as op } from "./operations.js";

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
  api.route(op.listForwards, ({ query }) => ({ data: forwards.list(query.namespace ?? "") }));
  // The body's short forms were expanded by its schema: the forward service sees the canonical shape only.
  api.route(op.addForward, async ({ body }) => ({ data: await forwards.add(body) }));
  api.route(op.getForward, ({ params, query }) => {
    const namespace = query.namespace ?? "";
    const found = forwards.get(namespace, params.name);
    if (!found) {
      throw new TrestleError(
        `No forward named '${params.name}' exists in ${namespace ? `namespace '${namespace}'` : "the default namespace"}`,
        Code.NotFound,
      );
    }
    return { data: found };
  });
  api.route(op.updateForward, async ({ params, query, body }) => ({
    data: await forwards.update(query.namespace ?? "", params.name, body),
  }));
  api.route(op.removeForward, async ({ params, query }) => ({
    data: await forwards.remove(query.namespace ?? "", params.name),
  }));
  api.route(op.refreshForward, async ({ params, query }) => ({
    data: await forwards.refresh(query.namespace ?? "", params.name),
  }));
}
