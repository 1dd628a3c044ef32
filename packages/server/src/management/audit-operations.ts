import { defineOperation } from "../http/json-api.js";
import {
  auditPageSchema,
  auditQuerySchema,
  auditRecordSchema,
  policyUpdateSchema,
  policyViewSchema,
} from "./api-schemas.js";

/*
 * The operations of the audit trail and of the policy rules managed through the API (see operations.ts, which
 * lists them with the rest).
 */

const listAuditRecords = defineOperation({
  id: "listAuditRecords",
  method: "GET",
  path: "/api/audit",
  summary: "Query the audit trail: policy decisions and call outcomes, newest first",
  description:
    "Records are shared by the replicas (they are in the store). A record names the principal, never its token; arguments only with `audit.arguments: redacted`.",
  tags: ["audit"],
  scope: "admin",
  query: auditQuerySchema,
  response: { kind: "json", status: 200, description: "A page of records", data: auditPageSchema },
  errors: [400, 503],
});

const auditStream = defineOperation({
  id: "auditStream",
  method: "GET",
  path: "/api/audit/stream",
  summary: "Follow the audit trail live",
  description:
    "Server-sent events named `audit`, one record each, from every replica, as they are written (records wait in a batch for up to about 200 ms). The SSE id is the record's id: a client that reconnects with `Last-Event-ID` gets the records written after it first.",
  tags: ["audit"],
  scope: "admin",
  response: { kind: "sse", description: "Audit records as they are written.", events: auditRecordSchema },
  errors: [503],
});

const getPolicies = defineOperation({
  id: "getPolicies",
  method: "GET",
  path: "/api/policies",
  summary: "The policy in force: configured rules, rules managed through the API, and the default",
  tags: ["policies"],
  scope: "admin",
  response: { kind: "json", status: 200, description: "The policy", data: policyViewSchema },
  errors: [],
});

const putPolicies = defineOperation({
  id: "putPolicies",
  method: "PUT",
  path: "/api/policies",
  summary: "Replace the rules managed through the API (and optionally the default)",
  description:
    "Each rule's `when` is compiled first: a rule that does not compile is answered 400 naming it and CEL's error, and nothing is stored. The configured rules stay first and cannot be changed here. The change applies to the next call on every replica, and MCP clients are told their lists changed.",
  tags: ["policies"],
  scope: "admin",
  body: { kind: "json", schema: policyUpdateSchema, what: "policy", description: "The managed rules" },
  response: { kind: "json", status: 200, description: "The policy now in force", data: policyViewSchema },
  errors: [400, 503],
});

/** The audit and policy operations, by `operationId`. */
export const auditOperations = { listAuditRecords, auditStream, getPolicies, putPolicies } as const;
