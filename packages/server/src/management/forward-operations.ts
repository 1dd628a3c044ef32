import { forwardSchema } from "@trestle/registry";
import { z } from "zod";
import { forwardViewSchema, nameParams, namespaceQuery } from "./api-schemas.js";
import { forwardRequestSchema, forwardShorthandSchema } from "./forward-shorthand.js";
import { jsonAnswer, operationGroup } from "./operation-group.js";

// Forwards
const forwardOperation = operationGroup({ tags: ["forwards"], scope: "admin" });
/** An operation on one forward, named in the path, of the namespace the query names. */
const namedForwardOperation = operationGroup({
  tags: ["forwards"],
  scope: "admin",
  params: nameParams,
  query: namespaceQuery,
});
/** What an operation that connects to the upstream may answer besides success. */
const upstreamErrors = [400, 404, 409, 502, 503] as const;

/** A forward as a request body: its upstream as an object or in a short form. */
function forwardBody(description: string) {
  return {
    kind: "json",
    schema: forwardRequestSchema,
    documented: z.union([forwardSchema, forwardShorthandSchema]),
    what: "forward",
    description,
  } as const;
}

const listForwards = forwardOperation({
  id: "listForwards",
  method: "GET",
  path: "/api/v1/forwards",
  summary: "List the forwards of a namespace (`namespace=*`: of every namespace) with their import status",
  query: namespaceQuery,
  response: jsonAnswer("The forwards", z.array(forwardViewSchema)),
  errors: [400, 404],
});
const addForward = forwardOperation({
  id: "addForward",
  method: "POST",
  path: "/api/v1/forwards",
  summary: "Import an MCP server into a namespace",
  description:
    "Connects to the upstream, saves the forward and imports its catalog. Nothing is saved when the upstream cannot be started, reached or listed.",
  body: forwardBody("The forward: its upstream as an object, or in a short form"),
  response: jsonAnswer("The forward, its upstream without secrets", forwardViewSchema, 201),
  errors: upstreamErrors,
});
const getForward = namedForwardOperation({
  id: "getForward",
  method: "GET",
  path: "/api/v1/forwards/{name}",
  summary: "Get a forward with its import status",
  response: jsonAnswer("The forward", forwardViewSchema),
  errors: [404],
});
const updateForward = namedForwardOperation({
  id: "updateForward",
  method: "PUT",
  path: "/api/v1/forwards/{name}",
  summary: "Change a forward's upstream, prefix, description or labels",
  description:
    "Connects to the new upstream first: nothing changes when that fails. Entries the new import no longer holds are removed.",
  body: forwardBody("The forward's new value"),
  response: jsonAnswer("The forward", forwardViewSchema),
  errors: upstreamErrors,
});
const removeForward = namedForwardOperation({
  id: "removeForward",
  method: "DELETE",
  path: "/api/v1/forwards/{name}",
  summary: "Remove a forward and every entry it imported",
  response: jsonAnswer("The forward removed", forwardViewSchema),
  errors: [404, 503],
});
const refreshForward = namedForwardOperation({
  id: "refreshForward",
  method: "POST",
  path: "/api/v1/forwards/{name}/refresh",
  summary: "List the upstream's catalog again and re-import it",
  response: jsonAnswer("The forward", forwardViewSchema),
  errors: [404, 502, 503],
});

/** The forwards' operations: list, add, get, replace, remove and refresh the MCP servers the router fronts. By `operationId`, as `managementApi` lists them. */
export const forwardOperations = {
  listForwards,
  addForward,
  getForward,
  updateForward,
  removeForward,
  refreshForward,
} as const;
