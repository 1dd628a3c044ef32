import { TrestleError } from "@trestle/core";
import type { StoreSqlClient } from "@trestle/registry";
import type { Logger } from "pino";
import { type AuditLog, createAuditLog } from "../audit/audit-log.js";
import type { AuditFront } from "../audit/audit-record.js";
import { createAuditTable } from "../audit/audit-table.js";
import { type CallAudit, createCallAudit } from "../audit/call-audit.js";
import type { CallPolicy } from "../calls/call-policy.js";
import type { CallService } from "../calls/call-service.js";
import type { CatalogView } from "../calls/catalog-view.js";
import type { RouterConfig } from "../config.js";
import { createManagedPolicy, type ManagedPolicy } from "../policies/managed-policy.js";
import { createPolicyTable, type PolicyTable } from "../policies/policy-table.js";

/** The audit trail and the policy in force, both in the store the replicas share. */
export interface AuditModule {
  /** The call service's policy: the configured rules, then those managed through the API. */
  readonly policy: CallPolicy;
  readonly managedPolicy: ManagedPolicy;
  readonly policyTable: PolicyTable;
  /** The audit trail; absent with `audit: false`. */
  readonly auditLog: AuditLog | undefined;
  /** `calls` as `front` uses it: recorded in the audit trail (as it is with `audit: false`). */
  forFront(calls: CallService, front: AuditFront): CallService;
  close(): Promise<void>;
}

/**
 * Opens the policy and the audit on the store's SQL client: the stored rules are read, and followed as other
 * replicas change them (LISTEN/NOTIFY, as the catalog's changes travel; the whole document is read again after a
 * lost notification); the audit writes in batches and deletes records past their retention.
 *
 * @throws TrestleError when the stored policy cannot be read or does not compile.
 */
export async function openAuditModule(
  config: RouterConfig,
  deps: { sql: StoreSqlClient; catalog: CatalogView; logger: Logger },
): Promise<AuditModule> {
  const logger = deps.logger.child({ component: "audit" });
  let callAudit: CallAudit | undefined;
  const managedPolicy = await createManagedPolicy({
    configured: config.policies,
    configuredDefault: config.policyDefault,
    onDecision: (caller, request, decision) => callAudit?.onDecision(caller, request, decision),
  });
  const policyTable = createPolicyTable(deps.sql);
  const reload = async () => {
    try {
      await managedPolicy.apply(await policyTable.load());
    } catch (error) {
      logger.error({ err: TrestleError.from(error).rawMessage }, "could not read the stored policy rules");
    }
  };
  await managedPolicy.apply(await policyTable.load());
  const unsubscribePolicy = await policyTable.subscribe(
    () => void reload(),
    () => void reload(),
  );
  const auditLog =
    config.audit === false
      ? undefined
      : createAuditLog({ table: createAuditTable(deps.sql), logger, retentionMs: config.audit.retentionMs });
  if (auditLog && config.audit !== false) {
    callAudit = createCallAudit({
      record: (record) => auditLog.record(record),
      arguments: config.audit.arguments,
      policyOpen: () => managedPolicy.policy.open,
      hiddenBy: (caller, name) => {
        const tool = deps.catalog.getTool(caller.namespace, name);
        return tool ? managedPolicy.hidingRule(caller, tool) : undefined;
      },
    });
  }
  return {
    policy: managedPolicy.policy,
    managedPolicy,
    policyTable,
    auditLog,
    forFront: (calls, front) => (callAudit ? callAudit.wrap(calls, front) : calls),
    async close() {
      await unsubscribePolicy();
      await auditLog?.close();
    },
  };
}
