import type { PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import { Code, TrestleError } from "@trestle/core";
import type { PolicyRule } from "@trestle/policy";
import {
  type CallPolicy,
  OPEN_POLICY,
  type PolicyDecision,
  type PolicyRequest,
} from "../calls/call-policy.js";
import type { Caller } from "../calls/caller.js";
import { celCallPolicy, type PolicyDecisionListener } from "../calls/cel-policy.js";
import { compileRules, loadPolicyEngine, type PolicyEngine, rulesProblems } from "./policy-engine.js";
import { EMPTY_STORED_POLICY, type StoredPolicy } from "./policy-table.js";

/** The most rules the API may store (each is evaluated on every call until one matches). */
export const MAX_MANAGED_RULES = 200;

/** The policy in force: the configured rules (read-only) first, then the API's, and the default. */
export interface EffectivePolicy {
  configured: readonly PolicyRule[];
  managed: StoredPolicy;
  default: "allow" | "deny";
  /** Where the default comes from: the API when it set one, else the configuration. */
  defaultSource: "configuration" | "api";
}

/**
 * The call service's policy when rules may change at run time: the configured rules come first and cannot be
 * changed through the API; the API's rules follow them; the API's default, when it set one, replaces the
 * configured `policyDefault`. {@link ManagedPolicy.policy} always decides with the rules applied last (the next call
 * sees a change), and its `revision` tells the call service to filter its lists again.
 */
export interface ManagedPolicy {
  /** The policy the call service decides with. */
  readonly policy: CallPolicy;
  /** The rules and default in force. */
  current(): EffectivePolicy;
  /**
   * Puts `stored` in force (after it was saved, or read from another replica's change); an older revision than the
   * one in force is ignored. Tells the listeners when something changed. The policy engine is loaded first when
   * these are the first rules.
   *
   * @throws TrestleError FailedPrecondition when a stored rule does not compile (nothing changes).
   */
  apply(stored: StoredPolicy): Promise<void>;
  /** The rule that hides `tool` from `caller`'s lists, or `undefined` when it is listed. */
  hidingRule(caller: Caller, tool: ToolReference): string | undefined;
  /** Tells `listener` after each change in force. */
  onChange(listener: () => void): () => void;
}

/**
 * The problems of `rules` as the API would store them after `configured`: one sentence each, naming the rule and
 * CEL's error (empty when they compile). A name used by a configured rule, or twice, is a problem. The policy
 * engine is loaded only when there is a rule to check.
 */
export async function managedRuleProblems(
  configured: readonly PolicyRule[],
  rules: readonly PolicyRule[],
): Promise<string[]> {
  if (rules.length > MAX_MANAGED_RULES)
    return [`at most ${MAX_MANAGED_RULES} rules may be managed through the API (${rules.length} sent)`];
  const configuredNames = new Set(configured.map((r) => r.name));
  const problems = rules
    .filter((r) => configuredNames.has(r.name))
    .map(
      (r) => `Policy rule "${r.name}" is a configured rule's name; configured rules cannot be replaced here`,
    );
  problems.push(...(await rulesProblems(rules)));
  return problems;
}

/**
 * Creates the {@link ManagedPolicy} over the configured rules and default, with nothing stored yet. The policy
 * engine is loaded only when there are configured rules (else on the first stored rule).
 *
 * @throws TrestleError InvalidArgument when a configured rule does not compile, worded as `resolveRouterConfig`
 *   words it (`resolveConfig` does not compile rules: a router made from its result reports them here).
 */
export async function createManagedPolicy(options: {
  configured: readonly PolicyRule[];
  configuredDefault: "allow" | "deny";
  onDecision?: PolicyDecisionListener;
}): Promise<ManagedPolicy> {
  const listeners = new Set<() => void>();
  let engine: PolicyEngine | undefined = options.configured.length > 0 ? await loadPolicyEngine() : undefined;
  const configuredProblems = engine ? engine.checkPolicies(options.configured) : [];
  if (configuredProblems.length > 0)
    throw new TrestleError(
      `Invalid configuration: ${configuredProblems.map((p) => `policies: ${p.message}`).join("; ")}`,
      Code.InvalidArgument,
    );
  let stored = EMPTY_STORED_POLICY;
  let revision = 0;
  let current: CallPolicy = OPEN_POLICY;
  let explain = compileRules(undefined, [], "allow");

  const effective = (): EffectivePolicy => ({
    configured: options.configured,
    managed: stored,
    default: stored.default ?? options.configuredDefault,
    defaultSource: stored.default === null ? "configuration" : "api",
  });

  const compile = () => {
    const rules = [...options.configured, ...stored.rules];
    const { default: effect } = effective();
    current = celCallPolicy(engine, rules, { default: effect });
    // Without rules and with `allow`, nothing is decided: calls need no listener (the open policy).
    if (!current.open)
      current = celCallPolicy(engine, rules, {
        default: effect,
        ...(options.onDecision ? { onDecision: options.onDecision } : {}),
      });
    explain = compileRules(engine, rules, effect);
    revision += 1;
  };
  compile();

  const policy: CallPolicy = {
    get open() {
      return current.open;
    },
    get revision() {
      return revision;
    },
    listsTool: (caller: Caller, tool: ToolReference) => current.listsTool(caller, tool),
    listsResource: (caller: Caller, resource: ResourceReference) => current.listsResource(caller, resource),
    listsPrompt: (caller: Caller, prompt: PromptReference) => current.listsPrompt(caller, prompt),
    decide: (caller: Caller, request: PolicyRequest): PolicyDecision => current.decide(caller, request),
  };

  return {
    policy,
    current: effective,
    async apply(next) {
      // Checked again after each wait: another apply may have put a newer revision in force meanwhile.
      const outdated = () =>
        next.revision < stored.revision ||
        (next.revision === stored.revision && next.updatedAt === stored.updatedAt);
      if (outdated()) return;
      const problems = await managedRuleProblems(options.configured, next.rules);
      if (problems.length > 0)
        // What the API refused never reaches the store; a row that does not compile here came from elsewhere.
        throw new TrestleError(
          `The stored policy does not compile: ${problems.join("; ")}`,
          Code.FailedPrecondition,
        );
      if (next.rules.length > 0 && engine === undefined) engine = await loadPolicyEngine();
      if (outdated()) return;
      stored = next;
      compile();
      for (const listener of listeners) listener();
    },
    hidingRule(caller, tool) {
      const decision = explain.decideList({
        principal: caller.principal,
        namespace: caller.namespace,
        method: "tools/list",
        tool: tool.labels ? { name: tool.name, labels: tool.labels } : { name: tool.name },
      });
      return decision.effect === "deny" ? (decision.rule ?? "(default)") : undefined;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
