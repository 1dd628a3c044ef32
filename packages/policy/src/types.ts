/** What a rule decides when its `when` holds. */
export type PolicyEffect = "allow" | "deny";

/** One rule of a policy, as configured. */
export interface PolicyRule {
  /** A name unique within the policy; refusals name it. */
  name: string;
  /** `deny` refuses, `allow` admits; the first rule whose `when` holds decides. */
  effect: PolicyEffect;
  /** A CEL expression over the variables of {@link PolicyInput}; must evaluate to a bool. */
  when: string;
}

/** Who is asking, as a policy sees it (a `Principal` of `@trestle/auth` fits). */
export interface PolicyPrincipal {
  name: string;
  groups: readonly string[];
  scopes: readonly string[];
  claims: Readonly<Record<string, unknown>>;
}

/** The tool a request is about. */
export interface PolicyTool {
  name: string;
  /** The tool's labels (`risk: "high"`); none when absent. */
  labels?: Readonly<Record<string, string>>;
}

/**
 * What a rule can read, at list time. CEL variables: `principal` (`.name`, `.groups`, `.scopes`, `.claims`),
 * `ns` (the namespace; `namespace` is a reserved word in CEL), `method`, `tool` (`.name`, `.labels`),
 * `resource` (`.uri`), `prompt` (`.name`). A request that is not about a tool, resource or prompt sees that
 * variable with empty values (`tool.name == ""`, `tool.labels` an empty map).
 */
export interface PolicyListInput {
  principal: PolicyPrincipal;
  /** The namespace of the endpoint (`""` for the default namespace). */
  namespace: string;
  /** The MCP method: `tools/list`, `resources/list`, `prompts/list` at list time. */
  method: string;
  tool?: PolicyTool;
  resource?: { uri: string };
  prompt?: { name: string };
}

/**
 * What a rule can read, at call time: everything of {@link PolicyListInput} and `arguments`, the request
 * body's arguments (never a header's), as JSON values.
 */
export interface PolicyCallInput extends PolicyListInput {
  /** `tools/call`, `resources/read`, `prompts/get`, … */
  method: string;
  /** The call's arguments from the request body; `{}` when absent. */
  arguments?: Readonly<Record<string, unknown>>;
}

/** The outcome of a decision. */
export interface PolicyDecision {
  effect: PolicyEffect;
  /** The rule that decided; absent when no rule did and the default applied. */
  rule?: string;
  /** One sentence for the caller and the audit log: which rule decided and why. */
  reason: string;
}

/** What the policy knows about one compiled rule. */
export interface CompiledRuleInfo {
  readonly name: string;
  readonly effect: PolicyEffect;
  readonly when: string;
  /** True when the expression reads `arguments` (found in its syntax tree, not its text). */
  readonly readsArguments: boolean;
}
