import {
  auditPageSchema,
  auditQuerySchema,
  auditRecordSchema,
  policyUpdateSchema,
  policyViewSchema,
} from "./api-schemas.js";
import { jsonAnswer, operationGroup } from "./operation-group.js";

/*
 * The operations of the audit trail and of the policy rules managed through the API (see operations.ts, which
 * lists them with the rest).
 */

const auditOperation = operationGroup({ tags: ["audit"], scope: "admin" });
const policyOperation = operationGroup({ tags: ["policies"], scope: "admin" });

const listAuditRecords = auditOperation({
  id: "listAuditRecords",
  method: "GET",
  path: "/api/audit",
  summary: "Query the audit trail: policy decisions and call outcomes, newest first",
  description:
    "Records are shared by the replicas (they are in the store). A record names the principal, never its token; arguments only with `audit.arguments: redacted`.",
  query: auditQuerySchema,
  response: jsonAnswer("A page of records", auditPageSchema),
  errors: [400, 503],
});

const auditStream = auditOperation({
  id: "auditStream",
  method: "GET",
  path: "/api/audit/stream",
  summary: "Follow the audit trail live",
  description:
    "Server-sent events named `audit`, one record each, from every replica, as they are written (records wait in a batch for up to about 200 ms). The SSE id is the record's id: a client that reconnects with `Last-Event-ID` gets the records written after it first.",
  response: { kind: "sse", description: "Audit records as they are written.", events: auditRecordSchema },
  errors: [503],
});

const getPolicies = policyOperation({
  id: "getPolicies",
  method: "GET",
  path: "/api/policies",
  summary: "The policy in force: configured rules, rules managed through the API, and the default",
  response: jsonAnswer("The policy", policyViewSchema),
  errors: [],
});

const putPolicies = policyOperation({
  id: "putPolicies",
  method: "PUT",
  path: "/api/policies",
  summary: "Replace the rules managed through the API (and optionally the default)",
  description:
    "Each rule's `when` is compiled first: a rule that does not compile is answered 400 naming it and CEL's error, and nothing is stored. The configured rules stay first and cannot be changed here. The change applies to the next call on every replica, and MCP clients are told their lists changed.",
  body: { kind: "json", schema: policyUpdateSchema, what: "policy", description: "The managed rules" },
  response: jsonAnswer("The policy now in force", policyViewSchema),
  errors: [400, 503],
});

/** The audit and policy operations, by `operationId`. */
export const auditOperations = { listAuditRecords, auditStream, getPolicies, putPolicies } as const;
