import { z } from "zod";

/** Thirty days, the default retention of audit records. */
const THIRTY_DAYS_MS = 30 * 24 * 60 * 60_000;

const auditSettingsSchema = z.strictObject({
  arguments: z
    .enum(["none", "redacted"])
    .default("none")
    .describe(
      "What of a call's arguments each record keeps: none, or redacted (credential-named fields replaced, at most 4 KiB)",
    ),
  retentionMs: z
    .number()
    .int()
    .min(60_000, "audit records must be kept at least 60000 ms (one minute)")
    .default(THIRTY_DAYS_MS)
    .describe("How long records are kept; older ones are deleted periodically (any replica may)"),
});

/** The audit's settings once validated; `false` when the audit is off. */
export type AuditSettings = z.output<typeof auditSettingsSchema>;

/** The router's keys for the audit trail. */
export const auditConfigFields = {
  audit: z
    .union([z.literal(false), auditSettingsSchema], {
      error: 'must be false, or {arguments: "none" | "redacted", retentionMs: at least 60000}',
    })
    .default({ arguments: "none", retentionMs: THIRTY_DAYS_MS })
    .describe(
      "The audit trail in the store: one record per policy decision and call outcome (who, what, the rule, the outcome, never a token); false turns it off",
    ),
};

/** How each of {@link auditConfigFields} is set from the environment. */
export const auditConfigSources: Record<keyof typeof auditConfigFields, { env: string }> = {
  audit: { env: "TRESTLE_AUDIT" },
};
