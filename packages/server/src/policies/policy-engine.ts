import type { CompiledPolicy, PolicyEffect, PolicyRule } from "@trestle/policy";

/**
 * The policy engine: `@trestle/policy` (CEL, RE2 and CEL's declarations, several MB of heap once loaded). A router
 * with no policy rule never loads it; the first rule, configured or stored, does (Node keeps the module once
 * imported, so each later load is the same object).
 */
export type PolicyEngine = Pick<typeof import("@trestle/policy"), "checkPolicies" | "compilePolicies">;

/** Loads the {@link PolicyEngine}. */
export function loadPolicyEngine(): Promise<PolicyEngine> {
  return import("@trestle/policy");
}

/**
 * The policy of no rule, decided without the engine: every decision is `effect`, with the reason the engine gives
 * when no rule matches.
 */
export function defaultOnlyPolicy(effect: PolicyEffect): CompiledPolicy {
  const decision = Object.freeze({ effect, reason: `No policy rule matched; the default is ${effect}` });
  return { decideCall: () => decision, decideList: () => decision, rules: [], defaultEffect: effect };
}

/**
 * `rules` compiled with `engine`, or the {@link defaultOnlyPolicy} when there are none.
 *
 * @throws PolicyError when a rule does not compile.
 * @throws Error when there are rules and `engine` was not loaded (a caller's mistake).
 */
export function compileRules(
  engine: PolicyEngine | undefined,
  rules: readonly PolicyRule[],
  effect: PolicyEffect,
): CompiledPolicy {
  if (rules.length === 0) return defaultOnlyPolicy(effect);
  if (engine === undefined) throw new Error("The policy engine must be loaded before rules are compiled");
  return engine.compilePolicies(rules, { default: effect });
}

/**
 * The problems of `rules` (one per problem, as `checkPolicies` words them), loading the engine only when there is
 * a rule to check.
 */
export async function rulesProblems(rules: readonly unknown[]): Promise<string[]> {
  if (rules.length === 0) return [];
  const engine = await loadPolicyEngine();
  return engine.checkPolicies(rules).map((problem) => problem.message);
}
