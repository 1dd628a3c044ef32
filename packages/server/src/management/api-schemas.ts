import type { ServiceType } from "@trestle/core";
import type { ToolCallEvent } from "@trestle/core/events";
import { SERVICE_TYPES } from "@trestle/core/routing";
import { type HealthRecord, labelsSchema, type RegisteredService } from "@trestle/registry";
import { z } from "zod";
import type { StoredAuditRecord } from "../audit/audit-record.js";
import { MAX_RECORDS_SCANNED } from "../audit/audit-table.js";
import type { ForwardView } from "../forwards/forward-view.js";

/*
 * Schemas of what the management API answers beyond the catalog's entries (those are the registry's own
 * schemas). Each is checked against the TypeScript type the router returns (`satisfies z.ZodType<T>`), so the
 * document cannot drift from the code without the build failing.
 */

/** `?namespace=`: the namespace an entry lives in ("" or absent: the default one). */
export const namespaceQuery = z.object({
  namespace: z.string().optional().describe('The namespace ("" or absent: the default namespace)'),
});

/** `?namespace=&labelFilter=` (`labels` is Wanaku's older name for `labelFilter`). */
export const entryListQuery = namespaceQuery.extend({
  labelFilter: z
    .string()
    .optional()
    .describe("A label expression (`env=prod & !legacy`): only entries whose labels match it"),
  labels: z.string().optional().describe("Another name for `labelFilter`"),
});

/** A `{name}` path parameter. */
export const nameParams = z.object({ name: z.string().min(1).describe("The entry's name") });

/** A `{id}` path parameter. */
export const idParams = z.object({ id: z.string().min(1).describe("The registration id") });

const healthStateSchema = z.enum(["healthy", "pending", "unhealthy", "down"]);

/** A registered capability service, as the registry holds it. */
export const registeredServiceSchema = z
  .object({
    id: z.string(),
    target: z.object({
      id: z.string(),
      serviceName: z.string(),
      host: z.string(),
      port: z.number().int(),
      serviceType: z.enum(SERVICE_TYPES as [ServiceType, ...ServiceType[]]),
      serviceSubType: z.string().optional(),
      languageName: z.string().optional(),
      languageType: z.string().optional(),
      languageSubType: z.string().optional(),
      protocol: z.string().optional(),
      dialect: z.string().optional().describe("The wire dialect of its protocol (gRPC: `v1` or `legacy`)"),
    }),
    health: healthStateSchema,
    healthMessage: z.string().optional(),
    healthChangedAt: z.number().describe("Milliseconds since the epoch"),
    registeredAt: z.number(),
    lastSeenAt: z.number(),
    lastHeartbeatAt: z.number().optional(),
    version: z.number().int(),
    registeredBy: z.string().optional().describe("The principal that registered it"),
  })
  .meta({ id: "RegisteredService" }) satisfies z.ZodType<RegisteredService>;

/** A registered instance's circuit on the router that answers, and the calls it has in flight to it. */
export const serviceCircuitSchema = z
  .object({
    id: z.string().describe("The registration id"),
    state: z
      .enum(["closed", "open", "half-open"])
      .describe(
        "`open`: skipped after failed calls in a row until a cool-down ends; `half-open`: one trial call decides",
      ),
    inFlight: z.number().int().describe("Calls this router process has in flight to the instance"),
  })
  .meta({ id: "ServiceCircuit" });

/** One entry of a service's health history. */
export const healthRecordSchema = z
  .object({ at: z.number(), state: healthStateSchema, message: z.string().optional() })
  .meta({ id: "HealthRecord" }) satisfies z.ZodType<HealthRecord>;

/** How many services are in each health state. */
export const fleetStatusSchema = z.object({
  total: z.number().int(),
  healthy: z.number().int(),
  pending: z.number().int(),
  unhealthy: z.number().int(),
  down: z.number().int(),
});

const eventBase = {
  eventId: z.string(),
  timestamp: z.number(),
  toolName: z.string(),
  toolType: z.string(),
  kind: z.enum(["tool", "code-execution"]),
  namespace: z.string().optional(),
  requestId: z.string().optional(),
  principal: z
    .string()
    .optional()
    .describe("Whose call it is: a token's name, `anonymous` on a router without tokens, `stdio`"),
  codeRun: z
    .string()
    .optional()
    .describe("The code-mode run the call belongs to: a program's run and each tool call it made share it"),
};

/** A tool-call event (redacted at its source), as the history and the notification stream carry it. */

const translationLegSchema = z.object({
  protocol: z.string(),
  version: z.string().optional(),
  method: z.string(),
});

/** What a call's translation between protocols or revisions kept and lost (terminal events only). */
const translationReportSchema = z
  .object({
    client: translationLegSchema,
    backend: translationLegSchema,
    notes: z.array(
      z.object({
        action: z.enum(["dropped", "rewritten", "approximated"]),
        what: z.string(),
        detail: z.string(),
      }),
    ),
  })
  .meta({ id: "TranslationReport" });

export const toolCallEventSchema = z
  .discriminatedUnion("type", [
    z.object({
      ...eventBase,
      type: z.literal("started"),
      connectionId: z.string().optional(),
      serviceId: z.string().optional(),
      serviceAddress: z.string().optional(),
      arguments: z.record(z.string(), z.string()),
      headers: z.record(z.string(), z.string()),
      body: z.string().optional(),
      configurationURI: z.string().optional(),
      secretsURI: z.string().optional(),
      code: z.string().optional(),
      argumentCount: z.number().int().optional(),
    }),
    z.object({
      ...eventBase,
      type: z.literal("completed"),
      isError: z.literal(false),
      content: z.array(z.string()),
      duration: z.number(),
      translation: translationReportSchema.optional(),
    }),
    z.object({
      ...eventBase,
      type: z.literal("failed"),
      isError: z.literal(true),
      content: z.array(z.string()),
      duration: z.number(),
      errorCategory: z.enum([
        "none",
        "service_unavailable",
        "tool_definition_error",
        "invalid_arguments",
        "execution_error",
        "unknown",
      ]),
      errorMessage: z.string(),
      translation: translationReportSchema.optional(),
    }),
  ])
  .meta({ id: "ToolCallEvent" }) satisfies z.ZodType<ToolCallEvent>;

/** A registry event on `/api/v1/management/events`. */
export const registryEventSchema = z.object({
  type: z.enum(["registered", "updated", "deregistered", "health-changed"]),
  service: registeredServiceSchema,
});

/** What a forward view shows of the router's credential for the upstream: its kind, never its values. */
const upstreamAuthKindSchema = z
  .enum(["static", "tokenExchange"])
  .describe("The kind of the router's own credential for the upstream (never its values)");

/** A forward as answers show it: its upstream without arguments, environment values or header values. */
export const forwardViewSchema = z
  .object({
    id: z.string().optional(),
    name: z.string(),
    namespace: z.string(),
    description: z.string().optional(),
    prefix: z.string().optional(),
    labels: labelsSchema.optional(),
    service: z.string().describe("The service name its entries are routed to"),
    upstream: z.discriminatedUnion("kind", [
      z.object({
        kind: z.literal("stdio"),
        program: z.string(),
        argumentCount: z.number().int(),
        environment: z.array(z.string()).describe("The names of the variables set (never their values)"),
        mode: z.enum(["pooled", "per-call"]),
        sandbox: z
          .boolean()
          .describe("Whether the server runs in the router's sandbox (false: unconfined, by request)"),
        writablePaths: z.array(z.string()).describe("Host paths the sandboxed server may write"),
      }),
      z.object({
        kind: z.literal("http"),
        server: z.string(),
        headers: z.array(z.string()).describe("The names of the headers sent (never their values)"),
        upstreamAuth: upstreamAuthKindSchema.optional(),
      }),
      z.object({
        kind: z.literal("a2a"),
        server: z.string().describe("The A2A agent's origin"),
        headers: z.array(z.string()).describe("The names of the headers sent (never their values)"),
        upstreamAuth: upstreamAuthKindSchema.optional(),
      }),
    ]),
    status: z.object({
      state: z.enum(["connecting", "ready", "reconnecting", "failed"]),
      server: z.object({ name: z.string(), version: z.string() }).optional(),
      capabilities: z.array(z.string()).optional(),
      imported: z.object({
        tools: z.number().int(),
        resources: z.number().int(),
        resourceTemplates: z.number().int(),
        prompts: z.number().int(),
      }),
      skipped: z.array(
        z.object({
          kind: z.enum(["tool", "resource", "resource template", "prompt"]),
          upstreamName: z.string(),
          name: z.string().optional(),
          reason: z.string(),
        }),
      ),
      importedAt: z.string().optional().describe("ISO 8601"),
      error: z.string().optional(),
    }),
  })
  .meta({ id: "ForwardView" }) satisfies z.ZodType<ForwardView>;

/** A code execution request. */
export const codeExecutionRequestSchema = z
  .object({
    code: z.string({ error: "must be the code (a string, plain or Base64)" }),
    arguments: z
      .union([z.array(z.string()), z.record(z.string(), z.string())], {
        error: "must be a list or an object of strings",
      })
      .optional(),
    environment: z.record(z.string(), z.string()).optional(),
    timeout: z
      .number()
      .int("must be a whole number of milliseconds")
      .positive("must be a positive number of milliseconds")
      .optional()
      .describe("How long the engine may run the code, in milliseconds"),
    timeoutMs: z.number().int().positive().optional().describe("Another name for `timeout`"),
  })
  .meta({ id: "CodeExecutionRequest" });

/** A started code execution: where to read its output. */
export const codeExecutionTaskSchema = z.object({ taskId: z.string(), streamUrl: z.string() });

/** One event of a code execution stream (`reply`, `error`, `dropped` or `end`). */
export const codeExecutionEventSchema = z.union([
  z.object({
    outputType: z.enum(["stdout", "stderr", "status", "completion", "unspecified"]),
    status: z.string(),
    content: z.string(),
    exitCode: z.number().int().optional(),
    timestamp: z.number().optional(),
  }),
  z.object({ code: z.number().int(), message: z.string() }),
  z.object({ dropped: z.number().int() }),
  z.object({ taskId: z.string() }),
]);

/** One record of the audit trail (`GET /api/audit`, `GET /api/audit/stream`). */
export const auditRecordSchema = z
  .object({
    id: z.string().describe("Increasing: the cursor of the next page, and the SSE id"),
    at: z.number().describe("Epoch milliseconds when the call began"),
    principalId: z.string(),
    principalName: z.string(),
    principalKind: z.enum(["token", "oauth", "stdio", "anonymous"]),
    namespace: z.string(),
    method: z.enum(["tools/call", "resources/read", "prompts/get", "tools/list", "code/execute"]),
    target: z
      .string()
      .nullable()
      .describe("The tool, resource URI, prompt, or engine/language; null for a list"),
    decision: z.enum(["allowed", "denied"]),
    rule: z
      .string()
      .nullable()
      .describe("The rule that decided, `(default)` when none matched; null when no policy applies"),
    outcome: z.enum(["ok", "isError", "error"]).nullable().describe("null when denied"),
    errorCode: z.string().nullable().describe("The failure's code when the outcome is `error`"),
    durationMs: z.number().nullable(),
    front: z.enum(["mcp", "a2a", "management"]),
    requestId: z.string().nullable(),
    arguments: z
      .unknown()
      .describe("The arguments, redacted and bounded, with `audit.arguments: redacted`; null otherwise"),
  })
  .describe(
    "A policy decision and the outcome of the call it let through",
  ) satisfies z.ZodType<StoredAuditRecord>;

const digits = z.string().regex(/^\d+$/, "must be a non-negative integer");

/** `GET /api/audit`'s filters. */
export const auditQuerySchema = z.object({
  principal: z.string().optional().describe("Only this principal's records (its id: a token's name)"),
  namespace: z.string().optional().describe("Only records of calls made in this namespace"),
  tool: z.string().optional().describe("Only records of this target (tool, resource URI, prompt)"),
  decision: z.enum(["allowed", "denied"]).optional(),
  outcome: z.enum(["ok", "isError", "error"]).optional(),
  since: digits.optional().describe("Only records at or after this time (epoch ms)"),
  until: digits.optional().describe("Only records before this time (epoch ms)"),
  limit: digits.optional().describe("How many records at most (1 to 1000; default 100)"),
  cursor: digits.optional().describe("The `nextCursor` of the previous page: the records older than it"),
});

/** A page of the audit trail, newest first. */
export const auditPageSchema = z.object({
  records: z.array(auditRecordSchema),
  nextCursor: z
    .string()
    .nullable()
    .describe(
      "Pass it as `cursor` for the next (older) page; null at the end. A page with a cursor can hold fewer records " +
        `than \`limit\`, even none: one request reads at most ${MAX_RECORDS_SCANNED.toLocaleString("en")} records, ` +
        "and a narrow filter may not fill it",
    ),
});

const policyRuleSchema = z.object({
  name: z
    .string()
    .min(1)
    .max(200)
    .describe("Unique among the configured and managed rules; refusals name it"),
  effect: z.enum(["allow", "deny"]),
  when: z
    .string()
    .min(1)
    .max(4096)
    .describe("A CEL expression over principal, ns, method, tool, resource, prompt, arguments"),
});

/** `PUT /api/policies`: the rules managed through the API, in order, and optionally the default. */
export const policyUpdateSchema = z.strictObject({
  rules: z.array(policyRuleSchema).describe("The managed rules, tried in order after the configured ones"),
  default: z
    .enum(["allow", "deny"])
    .nullable()
    .optional()
    .describe("What decides when no rule matches; null or absent: the configured `policyDefault`"),
});

/** The policy in force (`GET /api/policies`). */
export const policyViewSchema = z.object({
  configured: z
    .array(policyRuleSchema)
    .describe("The rules of the configuration: read-only here, tried first"),
  rules: z
    .array(policyRuleSchema)
    .describe("The rules managed through the API, tried after the configured ones"),
  default: z.enum(["allow", "deny"]).describe("What decides when no rule matches"),
  defaultSource: z.enum(["configuration", "api"]),
  revision: z.number().describe("Increases with every change through the API (0: never changed)"),
  updatedAt: z.number().nullable().describe("Epoch ms of the last change through the API"),
  updatedBy: z.string().nullable().describe("The principal that made it"),
});
