import {
  namespaceEntrySchema,
  namespaceInputSchema,
  promptInputSchema,
  promptSchema,
  resourceInputSchema,
  resourceSchema,
  toolInputSchema,
  toolSchema,
} from "@trestle/registry";
import { z } from "zod";
import { entryListQuery, nameParams, namespaceQuery } from "./api-schemas.js";
import { jsonAnswer, operationGroup } from "./operation-group.js";

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
  const entryOperation = operationGroup({ tags: [kind.many], scope: "admin" });
  const namedEntryOperation = operationGroup({
    tags: [kind.many],
    scope: "admin",
    params: nameParams,
    query: namespaceQuery,
  });
  const answer = (description: string) => jsonAnswer(description, kind.entry);
  return {
    list: entryOperation({
      id: kind.ids.list,
      method: "GET",
      path: `/api/v1/${kind.many}`,
      summary: `List the ${kind.many} of a namespace`,
      query: entryListQuery,
      response: jsonAnswer(`The ${kind.many}, ${kind.order}`, z.array(kind.entry)),
      errors: entryErrors,
    }),
    add: entryOperation({
      id: kind.ids.add,
      method: "POST",
      path: `/api/v1/${kind.many}`,
      summary: `Add a ${kind.one}`,
      body: { kind: "json", schema: kind.input, what: kind.one, description: `The ${kind.one}` },
      response: answer(`The ${kind.one} as stored (with its id)`),
      errors: writeErrors,
    }),
    removeMatching: entryOperation({
      id: kind.ids.removeMatching,
      method: "DELETE",
      path: `/api/v1/${kind.many}`,
      summary: `Remove the ${kind.many} whose labels match a filter`,
      query: bulkRemoveQuery,
      response: jsonAnswer(`The ${kind.many} removed`, z.array(kind.entry)),
      errors: writeErrors,
    }),
    get: namedEntryOperation({
      id: kind.ids.get,
      method: "GET",
      path: `/api/v1/${kind.many}/{name}`,
      summary: `Get a ${kind.one} by name`,
      response: answer(`The ${kind.one}`),
      errors: entryErrors,
    }),
    update: namedEntryOperation({
      id: kind.ids.update,
      method: "PUT",
      path: `/api/v1/${kind.many}/{name}`,
      summary: `Replace a ${kind.one} (${kind.fixed} stay)`,
      body: { kind: "json", schema: kind.input, what: kind.one, description: `The ${kind.one}'s new value` },
      response: answer(`The ${kind.one} as stored`),
      errors: writeErrors,
    }),
    remove: namedEntryOperation({
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
  return operationGroup({ tags: [kind.many], scope: "admin" })({
    id,
    method: "POST",
    path: `/api/v1/${kind.many}/payloads`,
    summary: `Add a ${kind.one} and have its capability store its configuration and secrets`,
    body: {
      kind: "json",
      schema: payloadBody(kind.input),
      what: `${kind.one} payload`,
      description: `The ${kind.one}, with its configuration and secrets`,
    },
    response: jsonAnswer(`The ${kind.one} as stored, with the URIs the capability provisioned`, kind.entry),
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
const namespaceOperation = operationGroup({ tags: ["namespaces"], scope: "admin" });
const listNamespaces = namespaceOperation({
  id: "listNamespaces",
  method: "GET",
  path: "/api/v1/namespaces",
  summary: "List the namespaces, the default one first",
  response: jsonAnswer("The namespaces", z.array(namespaceEntrySchema)),
  errors: [],
});
const createNamespace = namespaceOperation({
  id: "createNamespace",
  method: "POST",
  path: "/api/v1/namespaces",
  summary: "Create a namespace",
  body: { kind: "json", schema: namespaceInputSchema, what: "namespace", description: "The namespace" },
  response: jsonAnswer("The namespace as stored", namespaceEntrySchema),
  errors: [400, 409, 503],
});
const getNamespace = namespaceOperation({
  id: "getNamespace",
  method: "GET",
  path: "/api/v1/namespaces/{name}",
  summary: "Get a namespace",
  params: z.object({ name: z.string().describe('The namespace\'s name ("" is the default one)') }),
  response: jsonAnswer("The namespace", namespaceEntrySchema),
  errors: [404],
});
const deleteNamespace = namespaceOperation({
  id: "deleteNamespace",
  method: "DELETE",
  path: "/api/v1/namespaces/{name}",
  summary: "Delete a namespace (with its entries when `cascade=true`; refused when not empty otherwise)",
  params: z.object({ name: z.string().describe("The namespace's name") }),
  query: z.object({
    cascade: z
      .string()
      .optional()
      .describe("`true`: delete the namespace's tools, resources and prompts too"),
  }),
  response: jsonAnswer("The namespace deleted", namespaceEntrySchema),
  errors: [400, 404, 409, 503],
});

/** The catalog's operations: tools, resources and prompts (list, add, add with provisioning, remove by label, get, replace, remove) and namespaces. By `operationId`, as `managementApi` lists them. */
export const catalogOperations = {
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
} as const;
