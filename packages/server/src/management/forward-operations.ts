import { forwardSchema } from "@trestle/registry";
import { z } from "zod";
import { defineOperation } from "../http/json-api.js";
import { forwardViewSchema, nameParams, namespaceQuery } from "./api-schemas.js";
import { forwardRequestSchema, forwardShorthandSchema } from "./forward-shorthand.js";

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

/** The forwards' operations: list, add, get, replace, remove and refresh the MCP servers the router fronts. By `operationId`, as `managementApi` lists them. */
export const forwardOperations = {
  listForwards,
  addForward,
  getForward,
  updateForward,
  removeForward,
  refreshForward,
} as const;
