import {
  type CelError,
  type CelInput,
  type CelMap,
  type CelResult,
  type CelValue,
  celEnv,
  celError,
  isCelError,
} from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { argumentsToCel, principalToCel, recordToCel, toolToCel } from "./cel-values.js";
import { type CompiledRule, compileRule } from "./compile-rule.js";
import { PolicyError, type PolicyProblem } from "./errors.js";
import type {
  CompiledRuleInfo,
  PolicyCallInput,
  PolicyDecision,
  PolicyEffect,
  PolicyListInput,
  PolicyPrincipal,
  PolicyRule,
  PolicyTool,
} from "./types.js";

/** Options of {@link compilePolicies}. */
export interface PolicyOptions {
  /** What happens when no rule matches; default `allow` (`deny` closes the policy: `policyDefault: deny`). */
  default?: PolicyEffect;
}

/** A decision of {@link CompiledPolicy}, with the CEL error when a rule could not be evaluated. */
export interface PolicyDecisionDetail extends PolicyDecision {
  /**
   * The evaluation error of the deciding rule, for the operator's log (it may quote the request's values);
   * the `reason` never does.
   */
  evaluationError?: string;
}

/** A compiled policy: rules parsed and planned once, decided many times. */
export interface CompiledPolicy {
  /**
   * Decides a call (`tools/call`, `resources/read`, `prompts/get`, …): every rule applies, in order; the
   * first whose `when` is true decides; none → the default. A deny rule whose evaluation fails (a missing
   * argument, a type mismatch, a non-bool result) denies; an allow rule whose evaluation fails does not allow.
   */
  decideCall(input: PolicyCallInput): PolicyDecisionDetail;
  /**
   * Decides whether an item belongs in a principal's list (`tools/list` and the like): a tool is listed when
   * some call of it could pass. Rules that do not read `arguments` apply as at call time. A rule that reads
   * `arguments` is evaluated with the arguments unknown: if it holds whatever they are (`false && …` aside,
   * `principal.name == "x" || arguments.a == 1` for x) it decides; if it cannot hold it is skipped; if it
   * depends on them, a deny rule is not applied and an allow rule admits the item.
   */
  decideList(input: PolicyListInput): PolicyDecisionDetail;
  /** The rules as compiled, in order. */
  readonly rules: readonly CompiledRuleInfo[];
  /** The effect when no rule matches. */
  readonly defaultEffect: PolicyEffect;
}

/**
 * Every problem of a list of rules (bad shape, duplicate name, syntax error, unknown variable or function),
 * one sentence each, without throwing: what a management API answers to a rule it refuses.
 */
export function checkPolicies(rules: readonly unknown[]): PolicyProblem[] {
  return compileAll(rules).problems;
}

/**
 * Compiles `rules` (each parsed and planned once).
 *
 * @throws {PolicyError} when any rule is not valid; its message is one sentence naming the rule and the
 *   position, `problems` lists every problem.
 * @example
 * const policy = compilePolicies([
 *   { name: "team-b-tools", effect: "deny", when: 'tool.name.startsWith("b_") && !("team-b" in principal.groups)' },
 *   { name: "large-payments", effect: "deny", when: 'tool.name == "pay" && arguments.amount > 100' },
 * ]);
 * policy.decideCall({ principal, namespace: "", method: "tools/call", tool: { name: "pay" }, arguments: { amount: 150 } });
 * // { effect: "deny", rule: "large-payments", reason: 'Denied by policy rule "large-payments"' }
 */
export function compilePolicies(rules: readonly PolicyRule[], options: PolicyOptions = {}): CompiledPolicy {
  const defaultEffect = options.default ?? "allow";
  if (defaultEffect !== "allow" && defaultEffect !== "deny") {
    throw new PolicyError([
      {
        rule: "(default)",
        message: `The policy default is ${JSON.stringify(defaultEffect)}; it must be "allow" or "deny"`,
      },
    ]);
  }
  const { compiled, problems } = compileAll(rules);
  if (problems.length > 0) throw new PolicyError(problems);

  // Per policy, not per module: conversions of the same principal or tool object are reused across decisions.
  const principals = new WeakMap<PolicyPrincipal, CelMap>();
  const tools = new WeakMap<PolicyTool, CelMap>();
  // Per principal and tool object (both immutable, as the conversions above assume), namespace and method: what
  // does not depend on a call's arguments, worked out once. A policy is compiled again when its rules change.
  const decided = new WeakMap<PolicyPrincipal, WeakMap<PolicyTool, Map<string, FixedOutcomes>>>();
  const noTool = toolToCel(undefined);
  const noResource = recordToCel("uri", undefined);
  const noPrompt = recordToCel("name", undefined);
  const unknownArguments = celError("the call's arguments are not known when a list is filtered");
  const defaultDecision: PolicyDecisionDetail = Object.freeze({
    effect: defaultEffect,
    reason: `No policy rule matched; the default is ${defaultEffect}`,
  });

  const principalValue = (principal: PolicyPrincipal) => {
    let value = principals.get(principal);
    if (value === undefined) {
      value = principalToCel(principal);
      principals.set(principal, value);
    }
    return value;
  };
  const toolValue = (tool: PolicyTool | undefined) => {
    if (tool === undefined) return noTool;
    let value = tools.get(tool);
    if (value === undefined) {
      value = toolToCel(tool);
      tools.set(tool, value);
    }
    return value;
  };

  /** The memo of `input`'s fixed outcomes; `undefined` when it is not about a tool (nothing is kept). */
  const fixedOutcomes = (input: PolicyListInput): FixedOutcomes | undefined => {
    if (input.tool === undefined || input.resource !== undefined || input.prompt !== undefined)
      return undefined;
    let byTool = decided.get(input.principal);
    if (byTool === undefined) {
      byTool = new WeakMap();
      decided.set(input.principal, byTool);
    }
    let byPlace = byTool.get(input.tool);
    if (byPlace === undefined) {
      byPlace = new Map();
      byTool.set(input.tool, byPlace);
    }
    const key = `${input.method}\n${input.namespace}`;
    let outcomes = byPlace.get(key);
    if (outcomes === undefined) {
      // Bounded: a tool is asked about in few namespaces and methods; past that, start over.
      if (byPlace.size >= MAX_PLACES_PER_TOOL) byPlace.clear();
      outcomes = {
        results: new Array<CelResult | typeof NOT_EVALUATED>(compiled.length).fill(NOT_EVALUATED),
      };
      byPlace.set(key, outcomes);
    }
    return outcomes;
  };

  function bindings(input: PolicyListInput, args: () => CelInput | CelError): Record<string, CelValue> {
    return new Bindings(
      principalValue(input.principal),
      input.namespace,
      input.method,
      toolValue(input.tool),
      input.resource === undefined ? noResource : recordToCel("uri", input.resource.uri),
      input.prompt === undefined ? noPrompt : recordToCel("name", input.prompt.name),
      args,
    ) as unknown as Record<string, CelValue>;
  }

  function decide(
    values: Record<string, CelValue>,
    listTime: boolean,
    fixed: FixedOutcomes | undefined,
  ): PolicyDecisionDetail {
    for (const [index, rule] of compiled.entries()) {
      const result =
        fixed && !rule.readsArguments ? fixedResult(fixed, index, rule, values) : rule.evaluate(values);
      if (result === true) {
        return {
          effect: rule.effect,
          rule: rule.name,
          reason: `${verb(rule.effect)} by policy rule "${rule.name}"`,
        };
      }
      if (result === false) continue;
      if (listTime && rule.readsArguments) {
        // The outcome depends on arguments no list request has: list the item when some call could pass.
        if (rule.effect === "deny") continue;
        return {
          effect: "allow",
          rule: rule.name,
          reason: `Listed: policy rule "${rule.name}" may allow it, depending on the call's arguments`,
        };
      }
      if (rule.effect === "deny") {
        return {
          effect: "deny",
          rule: rule.name,
          reason: `Denied by policy rule "${rule.name}", which could not be evaluated (a deny rule that cannot be evaluated denies)`,
          evaluationError: failure(result),
        };
      }
      // An allow rule that cannot be evaluated does not allow: the next rules decide.
    }
    return defaultDecision;
  }

  return {
    rules: Object.freeze(
      compiled.map(({ name, effect, when, readsArguments }) =>
        Object.freeze({ name, effect, when, readsArguments }),
      ),
    ),
    defaultEffect,
    decideCall(input) {
      return decide(
        bindings(input, () => argumentsToCel(input.arguments)),
        false,
        fixedOutcomes(input),
      );
    },
    decideList(input) {
      // A list decision reads no arguments: the whole of it is fixed.
      const fixed = fixedOutcomes(input);
      if (fixed?.listDecision) return fixed.listDecision;
      const decision = decide(
        bindings(input, () => unknownArguments),
        true,
        fixed,
      );
      if (fixed) fixed.listDecision = Object.freeze(decision);
      return decision;
    },
  };
}

/** How many namespace-and-method pairs one principal's decisions about one tool are kept for. */
const MAX_PLACES_PER_TOOL = 16;

/** Marks a rule not evaluated yet in {@link FixedOutcomes}. */
const NOT_EVALUATED = Symbol("not evaluated");

/** What is fixed for one principal, tool, namespace and method: rules' results that do not read `arguments`. */
interface FixedOutcomes {
  /** Per rule, in order: its result, or {@link NOT_EVALUATED}. */
  results: Array<CelResult | typeof NOT_EVALUATED>;
  /** The list-time decision, once made. */
  listDecision?: PolicyDecisionDetail;
}

/** The result of the rule at `index`, evaluated the first time it is asked for. */
function fixedResult(
  fixed: FixedOutcomes,
  index: number,
  rule: CompiledRule,
  values: Record<string, CelValue>,
): CelResult {
  const known = fixed.results[index];
  if (known !== NOT_EVALUATED && known !== undefined) return known;
  const result = rule.evaluate(values);
  fixed.results[index] = result;
  return result;
}

/** The CEL variables of one decision; `arguments` is converted only if a rule reads it. */
class Bindings {
  #arguments: CelInput | CelError | undefined;
  readonly #makeArguments: () => CelInput | CelError;

  constructor(
    readonly principal: CelMap,
    readonly ns: string,
    readonly method: string,
    readonly tool: CelMap,
    readonly resource: CelMap,
    readonly prompt: CelMap,
    makeArguments: () => CelInput | CelError,
  ) {
    this.#makeArguments = makeArguments;
  }

  get arguments(): CelInput | CelError {
    this.#arguments ??= this.#makeArguments();
    return this.#arguments;
  }
}

function compileAll(rules: readonly unknown[]): { compiled: CompiledRule[]; problems: PolicyProblem[] } {
  const env = celEnv({ funcs: strings });
  const compiled: CompiledRule[] = [];
  const problems: PolicyProblem[] = [];
  const names = new Set<string>();
  rules.forEach((candidate, index) => {
    const result = compileRule(candidate, index, env);
    problems.push(...result.problems);
    if (result.rule === undefined) return;
    if (names.has(result.rule.name)) {
      problems.push({ rule: result.rule.name, message: `Policy rule "${result.rule.name}" is named twice` });
      return;
    }
    names.add(result.rule.name);
    compiled.push(result.rule);
  });
  return { compiled, problems };
}

function verb(effect: PolicyEffect): string {
  return effect === "deny" ? "Denied" : "Allowed";
}

function failure(result: CelResult): string {
  return isCelError(result) ? result.message : `the result is a ${typeof result}, not a bool`;
}
