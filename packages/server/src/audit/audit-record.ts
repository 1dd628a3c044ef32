import { ANONYMOUS_PRINCIPAL, type CallerPrincipal, STDIO_PRINCIPAL } from "../calls/caller.js";

/** The front a call came through. */
export type AuditFront = "mcp" | "a2a" | "management";

/** What a call asked for, as the audit names it. */
export type AuditMethod = "tools/call" | "resources/read" | "prompts/get" | "tools/list" | "code/execute";

/** How a principal was identified: a static token, an OAuth token, the stdio process, or nobody (no tokens). */
export type PrincipalKind = "token" | "oauth" | "stdio" | "anonymous";

/**
 * One record of the audit trail: a policy decision, with the outcome of the call when it went ahead. It names the
 * principal by id, name and kind, never by a credential; arguments only when configured (redacted and bounded).
 */
export interface AuditRecord {
  /** Epoch milliseconds when the call (or the decision) began. */
  at: number;
  principalId: string;
  principalName: string;
  principalKind: PrincipalKind;
  namespace: string;
  method: AuditMethod;
  /** The tool, resource URI, prompt, or `engine/language` of a code run; `null` for a list. */
  target: string | null;
  decision: "allowed" | "denied";
  /** The rule that decided, `(default)` when none matched; `null` when no policy applies (the open policy). */
  rule: string | null;
  /** `ok`, `isError` (a tool result marked as an error), `error` (the call failed); `null` when denied. */
  outcome: "ok" | "isError" | "error" | null;
  /** The failure's code name (`Unavailable`, `DeadlineExceeded`, …) when the outcome is `error`. */
  errorCode: string | null;
  /** Milliseconds from the decision to the outcome; `null` when denied. */
  durationMs: number | null;
  front: AuditFront;
  /** The front's request id (the MCP JSON-RPC id), when it has one. */
  requestId: string | null;
  /** The arguments, redacted and bounded (`audit.arguments: redacted`); `null` otherwise. */
  arguments: unknown;
}

/** An audit record as stored and answered: with its id (increasing; the cursor and the SSE id). */
export interface StoredAuditRecord extends AuditRecord {
  id: string;
}

/**
 * How `principal` was identified. An OAuth principal's id is `<issuer>#<subject>` (a static token's name may not
 * contain `#`, the configuration refuses it).
 */
export function principalKind(principal: CallerPrincipal): PrincipalKind {
  if (principal === ANONYMOUS_PRINCIPAL) return "anonymous";
  if (principal === STDIO_PRINCIPAL) return "stdio";
  return principal.id.includes("#") ? "oauth" : "token";
}
