import { describe, expect, it } from "vitest";
import {
  checkPolicies,
  compilePolicies,
  type PolicyCallInput,
  PolicyError,
  type PolicyPrincipal,
  type PolicyRule,
} from "../src/index.js";

// The configuration of issue 49's acceptance checks.
const ISSUE_RULES: PolicyRule[] = [
  {
    name: "team-b-tools",
    effect: "deny",
    when: 'tool.name.startsWith("b_") && !("team-b" in principal.groups)',
  },
  { name: "large-payments", effect: "deny", when: 'tool.name == "pay" && arguments.amount > 100' },
];

const person = (name: string, groups: string[], claims: Record<string, unknown> = {}): PolicyPrincipal => ({
  name,
  groups,
  scopes: ["mcp"],
  claims: { sub: name, ...claims },
});
const alice = person("alice", ["team-a"]);
const bob = person("bob", ["team-b"]);

const call = (principal: PolicyPrincipal, tool: string, args?: Record<string, unknown>): PolicyCallInput => ({
  principal,
  namespace: "",
  method: "tools/call",
  tool: { name: tool },
  ...(args ? { arguments: args } : {}),
});
const listing = (principal: PolicyPrincipal, tool: string) => ({
  principal,
  namespace: "",
  method: "tools/list",
  tool: { name: tool },
});

describe("the issue's policy", () => {
  const policy = compilePolicies(ISSUE_RULES);

  it("shows and lets call b_ tools to team-b only", () => {
    expect(policy.decideList(listing(alice, "b_deploy"))).toMatchObject({
      effect: "deny",
      rule: "team-b-tools",
    });
    expect(policy.decideList(listing(bob, "b_deploy")).effect).toBe("allow");
    expect(policy.decideCall(call(alice, "b_deploy"))).toEqual({
      effect: "deny",
      rule: "team-b-tools",
      reason: 'Denied by policy rule "team-b-tools"',
    });
    expect(policy.decideCall(call(bob, "b_deploy")).effect).toBe("allow");
    expect(policy.decideCall(call(alice, "a_deploy")).effect).toBe("allow");
  });

  it("lists pay for everyone, since some call of it passes", () => {
    expect(policy.decideList(listing(alice, "pay"))).toEqual({
      effect: "allow",
      reason: "No policy rule matched; the default is allow",
    });
  });

  it("refuses a payment above 100, JSON integer or not, and allows one at or below it", () => {
    expect(policy.decideCall(call(alice, "pay", { amount: 150 }))).toMatchObject({
      effect: "deny",
      rule: "large-payments",
    });
    expect(policy.decideCall(call(alice, "pay", { amount: 150.5 })).effect).toBe("deny");
    expect(policy.decideCall(call(alice, "pay", { amount: 100 })).effect).toBe("allow");
    expect(policy.decideCall(call(alice, "pay", { amount: 99.99, currency: "EUR" })).effect).toBe("allow");
  });

  it("fails closed when the deny rule cannot be evaluated: amount missing, a string, or a list", () => {
    for (const args of [{}, { amount: "150" }, { amount: [150] }, undefined]) {
      const decision = policy.decideCall(call(alice, "pay", args));
      expect(decision).toMatchObject({ effect: "deny", rule: "large-payments" });
      expect(decision.reason).toBe(
        'Denied by policy rule "large-payments", which could not be evaluated (a deny rule that cannot be evaluated denies)',
      );
      expect(decision.evaluationError).toBeTruthy();
    }
  });

  it("reports which rules read arguments, from the syntax tree", () => {
    expect(policy.rules.map((r) => [r.name, r.readsArguments])).toEqual([
      ["team-b-tools", false],
      ["large-payments", true],
    ]);
  });
});

describe("reading arguments", () => {
  const reads = (when: string) =>
    compilePolicies([{ name: "r", effect: "deny", when }]).rules[0]?.readsArguments;

  it.each([
    ["has(arguments.reason)", true],
    ["arguments.items.exists(i, i.price > 10.0)", true],
    ["size(arguments) > 3", true],
    ['tool.name == "arguments"', false],
    ['principal.claims.arguments == "x"', false],
    ["[1].exists(arguments, arguments > 0)", false],
    ["[1].exists(x, x > 0) && arguments.a == 1", true],
    ["[1].map(arguments, arguments + 1).size() == 1 || arguments.b == 2", true],
  ])("%s → %s", (when, expected) => {
    expect(reads(when)).toBe(expected);
  });
});

describe("list time with arguments unknown", () => {
  it("applies a rule that holds whatever the arguments are", () => {
    const policy = compilePolicies([
      { name: "no-eve", effect: "deny", when: 'principal.name == "eve" || arguments.dangerous == true' },
    ]);
    expect(policy.decideList(listing(person("eve", []), "t"))).toMatchObject({
      effect: "deny",
      rule: "no-eve",
    });
    expect(policy.decideList(listing(alice, "t")).effect).toBe("allow");
    expect(policy.decideCall(call(alice, "t", { dangerous: true })).effect).toBe("deny");
  });

  it("skips a rule that cannot hold, and one that has() would make hold only with some arguments", () => {
    const policy = compilePolicies([
      { name: "need-reason", effect: "deny", when: 'tool.name == "pay" && !has(arguments.reason)' },
    ]);
    expect(policy.decideList(listing(alice, "pay")).effect).toBe("allow");
    expect(policy.decideCall(call(alice, "pay", {})).effect).toBe("deny");
    expect(policy.decideCall(call(alice, "pay", { reason: "rent" })).effect).toBe("allow");
  });

  it("lists an item an argument-dependent allow rule may admit under a closed default", () => {
    const policy = compilePolicies(
      [{ name: "small-payments", effect: "allow", when: 'tool.name == "pay" && arguments.amount <= 100' }],
      { default: "deny" },
    );
    expect(policy.decideList(listing(alice, "pay"))).toMatchObject({
      effect: "allow",
      rule: "small-payments",
    });
    expect(policy.decideList(listing(alice, "refund"))).toEqual({
      effect: "deny",
      reason: "No policy rule matched; the default is deny",
    });
    expect(policy.decideCall(call(alice, "pay", { amount: 50 })).effect).toBe("allow");
    expect(policy.decideCall(call(alice, "pay", { amount: 500 })).effect).toBe("deny");
  });
});

describe("semantics", () => {
  it("closes with policyDefault deny, and an allow rule that cannot be evaluated does not allow", () => {
    const policy = compilePolicies(
      [
        { name: "counted", effect: "allow", when: "arguments.count > 1" },
        { name: "ops", effect: "allow", when: '"ops" in principal.groups' },
      ],
      { default: "deny" },
    );
    expect(policy.decideCall(call(alice, "t", {})).effect).toBe("deny");
    expect(policy.decideCall(call(person("o", ["ops"]), "t", {}))).toMatchObject({
      effect: "allow",
      rule: "ops",
    });
    expect(policy.decideCall(call(alice, "t", { count: 2 }))).toMatchObject({
      effect: "allow",
      rule: "counted",
    });
    expect(compilePolicies([], { default: "deny" }).decideCall(call(alice, "t")).effect).toBe("deny");
    expect(compilePolicies([]).decideCall(call(alice, "t")).effect).toBe("allow");
  });

  it("uses the first rule that holds", () => {
    const policy = compilePolicies([
      { name: "ops-first", effect: "allow", when: '"ops" in principal.groups' },
      { name: "deny-all", effect: "deny", when: "true" },
    ]);
    expect(policy.decideCall(call(person("o", ["ops"]), "t")).rule).toBe("ops-first");
    expect(policy.decideCall(call(alice, "t")).rule).toBe("deny-all");
  });

  it("denies on a deny rule whose result is not a bool", () => {
    const decision = compilePolicies([{ name: "odd", effect: "deny", when: "tool.name" }]).decideCall(
      call(alice, "t"),
    );
    expect(decision).toMatchObject({
      effect: "deny",
      rule: "odd",
      evaluationError: "the result is a string, not a bool",
    });
  });

  it("exposes ns, method, labels, claims, scopes, resource and prompt", () => {
    const policy = compilePolicies([
      { name: "prod", effect: "deny", when: 'ns == "prod" && !("ops" in principal.groups)' },
      {
        name: "risky",
        effect: "deny",
        when: '"risk" in tool.labels && tool.labels.risk == "high" && !("admin" in principal.scopes)',
      },
      { name: "domain", effect: "deny", when: '!principal.claims.email.endsWith("@example.com")' },
      {
        name: "secrets",
        effect: "deny",
        when: 'method == "resources/read" && resource.uri.startsWith("file:///etc/")',
      },
      { name: "prompt", effect: "deny", when: 'prompt.name.lowerAscii() == "jailbreak"' },
    ]);
    const carol = person("carol", [], { email: "carol@example.com" });
    expect(policy.decideCall({ ...call(carol, "t"), namespace: "prod" }).rule).toBe("prod");
    expect(
      policy.decideCall({ ...call(carol, "t"), tool: { name: "t", labels: { risk: "high" } } }).rule,
    ).toBe("risky");
    expect(policy.decideCall(call(person("mallory", [], { email: "m@evil.example" }), "t")).rule).toBe(
      "domain",
    );
    expect(
      policy.decideCall({
        principal: carol,
        namespace: "",
        method: "resources/read",
        resource: { uri: "file:///etc/passwd" },
      }).rule,
    ).toBe("secrets");
    expect(
      policy.decideCall({
        principal: carol,
        namespace: "",
        method: "prompts/get",
        prompt: { name: "JailBreak" },
      }).rule,
    ).toBe("prompt");
    expect(policy.decideCall(call(carol, "t")).effect).toBe("allow");
  });

  it("denies through a deny rule that reads a missing map key: guard it with `in` or has()", () => {
    const unguarded = compilePolicies([
      { name: "risky", effect: "deny", when: 'tool.labels.risk == "high"' },
    ]);
    expect(unguarded.decideCall(call(alice, "unlabelled")).effect).toBe("deny");
    const guarded = compilePolicies([
      { name: "risky", effect: "deny", when: '"risk" in tool.labels && tool.labels.risk == "high"' },
    ]);
    expect(guarded.decideCall(call(alice, "unlabelled")).effect).toBe("allow");
    expect(
      guarded.decideCall({ ...call(alice, "x"), tool: { name: "x", labels: { risk: "high" } } }).effect,
    ).toBe("deny");
  });

  it("reads nested JSON arguments", () => {
    const policy = compilePolicies([
      { name: "big-line", effect: "deny", when: "arguments.order.lines.exists(l, l.qty * l.price > 1000.0)" },
    ]);
    const order = (qty: number, price: number) => ({
      order: {
        lines: [
          { qty: 1, price: 1 },
          { qty, price },
        ],
      },
    });
    expect(policy.decideCall(call(alice, "o", order(10, 200))).effect).toBe("deny");
    expect(policy.decideCall(call(alice, "o", order(10, 20))).effect).toBe("allow");
  });

  it("matches with RE2 (linear time): an attacker's argument cannot make a regex backtrack", () => {
    const policy = compilePolicies([
      { name: "redos", effect: "deny", when: 'arguments.s.matches("^(a+)+$")' },
    ]);
    expect(policy.decideCall(call(alice, "t", { s: `${"a".repeat(50_000)}!` })).effect).toBe("allow");
    expect(policy.decideCall(call(alice, "t", { s: "aaaa" })).effect).toBe("deny");
  });
});

describe("compile errors", () => {
  const problemOf = (rule: unknown) => {
    try {
      compilePolicies([rule as PolicyRule]);
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyError);
      return error as PolicyError;
    }
    throw new Error("expected a PolicyError");
  };

  it("names the rule and the position of a syntax error in one sentence", () => {
    const error = problemOf({
      name: "broken",
      effect: "deny",
      when: 'tool.name == "a" &&\n  (principal.name',
    });
    expect(error.message).toMatch(/^Policy rule "broken" has a syntax error \(.+\) at line \d+, column \d+$/);
    expect(error.problems[0]).toMatchObject({ rule: "broken" });
  });

  it("says that namespace is reserved in CEL and what to use", () => {
    expect(problemOf({ name: "ns", effect: "deny", when: 'namespace == "prod"' }).message).toBe(
      'Policy rule "ns" uses "namespace", a reserved word in CEL (the namespace is the variable "ns") at line 1, column 1',
    );
  });

  it("refuses an unknown variable and an unknown function, with their positions", () => {
    expect(
      problemOf({ name: "typo", effect: "deny", when: 'tool.name == "x" &&\n  principle.name == "y"' })
        .message,
    ).toBe(
      'Policy rule "typo" reads "principle", which is not a variable (the variables are principal, ns, method, tool, resource, prompt, arguments) at line 2, column 3',
    );
    expect(problemOf({ name: "fn", effect: "deny", when: 'tool.name.startswith("b_")' }).message).toBe(
      'Policy rule "fn" calls "startswith", which is not a CEL function at line 1, column 10',
    );
  });

  it("refuses a bad effect, a missing name, an empty when, and a name used twice", () => {
    expect(problemOf({ name: "e", effect: "block", when: "true" }).message).toBe(
      'Policy rule "e" has effect "block"; it must be "allow" or "deny"',
    );
    expect(problemOf({ effect: "deny", when: "true" }).message).toBe('Policy rule "#1" needs a name');
    expect(problemOf({ name: "w", effect: "deny", when: " " }).message).toBe(
      'Policy rule "w" needs a "when" expression',
    );
    expect(() =>
      compilePolicies([
        { name: "twice", effect: "deny", when: "true" },
        { name: "twice", effect: "allow", when: "true" },
      ]),
    ).toThrow('Policy rule "twice" is named twice');
  });

  it("refuses a default that is neither allow nor deny", () => {
    expect(() => compilePolicies([], { default: "maybe" as never })).toThrow(
      'The policy default is "maybe"; it must be "allow" or "deny"',
    );
  });

  it("lists every problem for a management API, and counts the rest in the message", () => {
    const rules = [
      { name: "a", effect: "deny", when: "x ==" },
      { name: "b", effect: "maybe", when: "true" },
      { name: "c", effect: "deny", when: "true" },
    ];
    expect(checkPolicies(rules).map((p) => p.rule)).toEqual(["a", "b"]);
    expect(checkPolicies(ISSUE_RULES)).toEqual([]);
    expect(() => compilePolicies(rules as PolicyRule[])).toThrow(/\(and 1 more problem\)$/);
  });
});
