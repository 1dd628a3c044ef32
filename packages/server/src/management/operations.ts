import { z } from "zod";
import { defineOperation } from "../http/json-api.js";
import { auditOperations } from "./audit-operations.js";
import { capabilityOperations } from "./capability-operations.js";
import { catalogOperations } from "./catalog-operations.js";
import { codeExecutionOperations } from "./code-execution-operations.js";
import { eventOperations } from "./event-operations.js";
import { forwardOperations } from "./forward-operations.js";

/*
 * Every operation of the management API: path, method and the schemas of what it reads and answers, on Wanaku's
 * paths where Wanaku has them. The route files implement these; the OpenAPI document is generated from them;
 * a client takes its types from them.
 */

// The document itself
const openApiDocument = defineOperation({
  id: "openApiDocument",
  method: "GET",
  path: "/api/openapi.json",
  summary: "This API's OpenAPI 3.1 document",
  tags: ["meta"],
  scope: "admin",
  response: {
    kind: "json",
    status: 200,
    description: "The document itself, without the envelope, so that OpenAPI tools load it by its URL",
    data: z.record(z.string(), z.unknown()),
    bare: true,
  },
  errors: [],
});

/**
 * Every operation of the management API, by `operationId`. Each holds its method, path and the zod schemas of its
 * path parameters, query, body and answer's `data`: a typed client takes its types from these
 * (`z.input<typeof managementApi.addTool.body.schema>`, `z.output<typeof managementApi.listTools.response.data>`).
 */
export const managementApi = {
  ...catalogOperations,
  ...capabilityOperations,
  ...eventOperations,
  ...forwardOperations,
  ...codeExecutionOperations,
  ...auditOperations,
  openApiDocument,
} as const;

/** The name of a management API operation. */
export type ManagementOperationId = keyof typeof managementApi;
