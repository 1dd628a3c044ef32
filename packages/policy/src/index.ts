export { MAX_EXPRESSION_LENGTH, POLICY_VARIABLES } from "./compile-rule.js";
export { PolicyError, type PolicyProblem } from "./errors.js";
export {
  type CompiledPolicy,
  checkPolicies,
  compilePolicies,
  type PolicyDecisionDetail,
  type PolicyOptions,
} from "./policy-set.js";
export type {
  CompiledRuleInfo,
  PolicyCallInput,
  PolicyDecision,
  PolicyEffect,
  PolicyListInput,
  PolicyPrincipal,
  PolicyRule,
  PolicyTool,
} from "./types.js";
