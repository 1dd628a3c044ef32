import { Code, TrestleError } from "@trestle/core";
import type { AuditLog } from "../audit/audit-log.js";
import { ANONYMOUS_PRINCIPAL } from "../calls/caller.js";
import type { JsonApi } from "../http/json-api.js";
import { openSseStream, type SseStreamOptions } from "../http/sse.js";
import { type ManagedPolicy, managedRuleProblems } from "../policies/managed-policy.js";
import type { PolicyTable } from "../policies/policy-table.js";
import { auditOperations as op } from "./audit-operations.js";

/** The most records one page of `GET /api/audit` answers. */
export const MAX_AUDIT_PAGE = 1000;

/** What the audit and policy routes need. */
export interface AuditRoutesDependencies {
  /** The audit trail; absent when it is off (`audit: false`): its routes answer 404 saying so. */
  auditLog: AuditLog | undefined;
  managedPolicy: ManagedPolicy;
  policyTable: PolicyTable;
  sseMaxBufferedBytes?: number;
  onSubscriberDropped?(stream: string, bufferedBytes: number): void;
  now?: () => number;
}

function auditOff(): TrestleError {
  return new TrestleError("The audit trail is off on this router (audit: false)", Code.NotFound);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The policy in force as the API answers it. */
function policyView(policy: ManagedPolicy) {
  const current = policy.current();
  return {
    configured: [...current.configured],
    rules: [...current.managed.rules],
    default: current.default,
    defaultSource: current.defaultSource,
    revision: current.managed.revision,
    updatedAt: current.managed.revision === 0 ? null : current.managed.updatedAt,
    updatedBy: current.managed.revision === 0 ? null : current.managed.updatedBy,
  };
}

/**
 * `GET /api/audit` (a page, newest first, with a cursor), `GET /api/audit/stream` (SSE, resumable by
 * `Last-Event-ID`), `GET /api/policies` and `PUT /api/policies` (validated before anything is stored; in force on
 * this replica at once and on the others as their notification arrives).
 */
export function registerAuditRoutes(api: JsonApi, deps: AuditRoutesDependencies): void {
  const now = deps.now ?? Date.now;
  const sseOptions: SseStreamOptions = {
    ...(deps.sseMaxBufferedBytes !== undefined ? { maxBufferedBytes: deps.sseMaxBufferedBytes } : {}),
    onDropped: (bytes) => deps.onSubscriberDropped?.("audit", bytes),
  };

  api.route(op.listAuditRecords, async ({ query }) => {
    if (!deps.auditLog) throw auditOff();
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    if (limit < 1 || limit > MAX_AUDIT_PAGE)
      throw new TrestleError(
        `limit must be between 1 and ${MAX_AUDIT_PAGE} (got ${limit})`,
        Code.InvalidArgument,
      );
    const page = await deps.auditLog.query({
      ...(query.principal !== undefined ? { principal: query.principal } : {}),
      ...(query.namespace !== undefined ? { namespace: query.namespace } : {}),
      ...(query.tool !== undefined ? { tool: query.tool } : {}),
      ...(query.decision !== undefined ? { decision: query.decision } : {}),
      ...(query.outcome !== undefined ? { outcome: query.outcome } : {}),
      ...(query.since !== undefined ? { since: Number(query.since) } : {}),
      ...(query.until !== undefined ? { until: Number(query.until) } : {}),
      ...(query.cursor !== undefined ? { before: query.cursor } : {}),
      limit,
    });
    return { data: page };
  });

  api.route(op.auditStream, async ({ req, res }) => {
    const log = deps.auditLog;
    if (!log) throw auditOff();
    const lastEventId = headerValue(req.headers["last-event-id"]);
    const sse = openSseStream(res, sseOptions);
    req.on("close", () => sse.close());
    const tail = await log.tail(
      lastEventId !== undefined && /^\d+$/.test(lastEventId) ? lastEventId : undefined,
      (records) => {
        for (const record of records) sse.send(JSON.stringify(record), { event: "audit", id: record.id });
      },
    );
    await sse.done;
    tail.stop();
    return undefined;
  });

  api.route(op.getPolicies, () => ({ data: policyView(deps.managedPolicy) }));

  api.route(op.putPolicies, async ({ body, principal }) => {
    const problems = await managedRuleProblems(deps.managedPolicy.current().configured, body.rules);
    if (problems.length > 0)
      throw new TrestleError(`Invalid policy: ${problems.join("; ")}`, Code.InvalidArgument);
    const stored = await deps.policyTable.save(
      body.rules,
      body.default ?? null,
      (principal ?? ANONYMOUS_PRINCIPAL).id,
      now(),
    );
    // In force here for the next call; the other replicas follow the notification.
    await deps.managedPolicy.apply(stored);
    return { data: policyView(deps.managedPolicy) };
  });
}
