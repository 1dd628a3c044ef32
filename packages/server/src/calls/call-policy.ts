import {
  Code,
  type JsonObject,
  type PromptReference,
  type ResourceReference,
  type ToolReference,
  TrestleError,
} from "@trestle/core";
import type { Caller } from "./caller.js";

/** What a call asks for, as a policy sees it: the method, what it names, and the arguments of the body. */
export type PolicyRequest =
  | { method: "tools/call"; tool: ToolReference; arguments: JsonObject }
  | { method: "resources/read"; resource: ResourceReference; uri: string }
  | { method: "prompts/get"; prompt: PromptReference; arguments: JsonObject };

/** A policy's answer: allowed, or refused by a rule it names. */
export type PolicyDecision = { allowed: true } | { allowed: false; rule: string; reason: string };

/**
 * Decides who may see and do what, one step of the call service for every front alike. At list time the
 * arguments are unknown: an entry is listed when some call of it could pass. At call time every rule applies.
 */
export interface CallPolicy {
  /** Whether `caller` sees `tool` in its lists. */
  listsTool(caller: Caller, tool: ToolReference): boolean;
  /** Whether `caller` sees `resource` in its lists. */
  listsResource(caller: Caller, resource: ResourceReference): boolean;
  /** Whether `caller` sees `prompt` in its lists. */
  listsPrompt(caller: Caller, prompt: PromptReference): boolean;
  /** Decides one call, with its arguments. */
  decide(caller: Caller, request: PolicyRequest): PolicyDecision;
  /** True when the policy filters nothing: lists are then shared by every caller as they are. */
  readonly open: boolean;
  /** Changes whenever the rules do (a policy managed at run time): lists filtered before are filtered again. */
  readonly revision?: number;
}

const ALLOWED: PolicyDecision = { allowed: true };

/** The policy of a router without rules: everything listed, everything allowed. */
export const OPEN_POLICY: CallPolicy = Object.freeze({
  listsTool: () => true,
  listsResource: () => true,
  listsPrompt: () => true,
  decide: () => ALLOWED,
  open: true,
});

/** The error of a call a policy refused: `PermissionDenied`, naming the rule. */
export function policyRefusal(decision: { rule: string; reason: string }): TrestleError {
  return new TrestleError(
    `Refused by the router's policy (rule '${decision.rule}'): ${decision.reason}`,
    Code.PermissionDenied,
  );
}
