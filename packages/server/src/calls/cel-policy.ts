import type { PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import type { CompiledPolicy, PolicyRule, PolicyTool } from "@trestle/policy";
import { compileRules, type PolicyEngine } from "../policies/policy-engine.js";
import { type CallPolicy, OPEN_POLICY, type PolicyDecision, type PolicyRequest } from "./call-policy.js";
import type { Caller } from "./caller.js";

/** What the router records of each decision a policy makes (for the audit). */
export type PolicyDecisionListener = (
  caller: Caller,
  request: PolicyRequest,
  decision: { effect: "allow" | "deny"; rule?: string; reason: string },
) => void;

/** The tool of a request as a policy reads it: its name and labels. */
function policyTool(tool: ToolReference): { name: string; labels?: Readonly<Record<string, string>> } {
  return tool.labels ? { name: tool.name, labels: tool.labels } : { name: tool.name };
}

/**
 * The call service's policy step over CEL rules (`@trestle/policy`): at list time a tool, resource or prompt is
 * listed when some call of it could pass (rules that read `arguments` do not hide it), at call time every rule
 * applies with the call's body arguments. Without rules and with the default `allow`, the open policy (nothing
 * filtered, every list shared as it is). Every call decision is told to `onDecision`. `engine` is needed only when
 * there are rules (without, the default decides).
 *
 * @throws PolicyError when a rule does not compile (the configuration check reports it first, in one sentence).
 */
export function celCallPolicy(
  engine: PolicyEngine | undefined,
  rules: readonly PolicyRule[],
  options: { default: "allow" | "deny"; onDecision?: PolicyDecisionListener },
): CallPolicy {
  if (rules.length === 0 && options.default === "allow" && !options.onDecision) return OPEN_POLICY;
  const compiled: CompiledPolicy = compileRules(engine, rules, options.default);
  // One policy view per catalog tool (tools are immutable; a change replaces the object): the policy keeps
  // what it worked out about a tool by the object it is given.
  const policyTools = new WeakMap<ToolReference, PolicyTool>();
  const policyToolOf = (tool: ToolReference): PolicyTool => {
    let view = policyTools.get(tool);
    if (view === undefined) {
      view = Object.freeze(policyTool(tool));
      policyTools.set(tool, view);
    }
    return view;
  };
  const listed = (caller: Caller, method: string, subject: object): boolean =>
    compiled.decideList({ principal: caller.principal, namespace: caller.namespace, method, ...subject })
      .effect === "allow";
  return {
    open: false,
    listsTool: (caller: Caller, tool: ToolReference) =>
      listed(caller, "tools/list", { tool: policyToolOf(tool) }),
    listsResource: (caller: Caller, resource: ResourceReference) =>
      listed(caller, "resources/list", { resource: { uri: resource.location } }),
    listsPrompt: (caller: Caller, prompt: PromptReference) =>
      listed(caller, "prompts/list", { prompt: { name: prompt.name } }),
    decide(caller: Caller, request: PolicyRequest): PolicyDecision {
      const base = { principal: caller.principal, namespace: caller.namespace, method: request.method };
      const decision =
        request.method === "tools/call"
          ? compiled.decideCall({ ...base, tool: policyToolOf(request.tool), arguments: request.arguments })
          : request.method === "resources/read"
            ? compiled.decideCall({ ...base, resource: { uri: request.uri } })
            : compiled.decideCall({
                ...base,
                prompt: { name: request.prompt.name },
                arguments: request.arguments,
              });
      options.onDecision?.(caller, request, decision);
      return decision.effect === "allow"
        ? { allowed: true }
        : { allowed: false, rule: decision.rule ?? "(default)", reason: decision.reason };
    },
  };
}
