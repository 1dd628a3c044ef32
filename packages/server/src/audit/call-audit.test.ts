import type { CodeExecutionBridge, InvokerBridge, ResourceBridge } from "@trestle/bridge";
import { Code, type JsonObject, type ToolReference, type ToolResult, TrestleError } from "@trestle/core";
import type { PolicyRule } from "@trestle/policy";
import { describe, expect, it } from "vitest";
import { type CallService, createCallService } from "../calls/call-service.js";
import { ANONYMOUS_PRINCIPAL, type Caller, callerPrincipal } from "../calls/caller.js";
import type { CatalogView } from "../calls/catalog-view.js";
import { createManagedPolicy, type ManagedPolicy } from "../policies/managed-policy.js";
import type { AuditRecord } from "./audit-record.js";
import { auditedArguments, createCallAudit, MAX_AUDITED_ARGUMENT_BYTES } from "./call-audit.js";

const tool = (name: string): ToolReference => ({ name, uri: `svc://${name}`, type: "svc" });
const TOOLS = [tool("echo"), tool("pay"), tool("broken"), tool("failing")];

function catalog(): CatalogView {
  return {
    listTools: () => TOOLS,
    getTool: (_ns, name) => TOOLS.find((t) => t.name === name),
    listResources: () => [],
    getResource: () => undefined,
    listPrompts: () => [],
    getPrompt: () => undefined,
    getNamespace: () => ({ name: "" }) as ReturnType<CatalogView["getNamespace"]>,
  };
}

/** An invoker whose tools answer by name: `broken` with an isError result, `failing` by rejecting. */
const invoker = {
  execute: async (_args: JsonObject, called: ToolReference): Promise<ToolResult> => {
    if (called.name === "failing") throw new TrestleError("the service is down", Code.Unavailable);
    return {
      content: [{ type: "text", text: called.name }],
      ...(called.name === "broken" ? { isError: true } : {}),
    };
  },
} as unknown as InvokerBridge;

async function setUp(rules: PolicyRule[], options: { arguments?: "none" | "redacted" } = {}) {
  const records: AuditRecord[] = [];
  let audit: ReturnType<typeof createCallAudit> | undefined;
  const managed: ManagedPolicy = await createManagedPolicy({
    configured: rules,
    configuredDefault: "allow",
    onDecision: (caller, request, decision) => audit?.onDecision(caller, request, decision),
  });
  audit = createCallAudit({
    record: (r) => records.push(r),
    arguments: options.arguments ?? "none",
    policyOpen: () => managed.policy.open,
    hiddenBy: (caller, name) => {
      const found = TOOLS.find((t) => t.name === name);
      return found ? managed.hidingRule(caller, found) : undefined;
    },
  });
  const inner = createCallService({
    catalog: catalog(),
    invoker,
    resources: {} as ResourceBridge,
    codeExecution: {} as CodeExecutionBridge,
    engines: () => [],
    codeExecutionToolName: "execute_code",
    maxConcurrentRunsPerPrincipal: 2,
    policy: managed.policy,
  });
  const calls: CallService = audit.wrap(inner, "mcp");
  return { records, calls, managed };
}

const alice: Caller = { principal: callerPrincipal({ id: "alice", scopes: ["mcp"] }), namespace: "" };
const bob: Caller = { principal: callerPrincipal({ id: "bob", scopes: ["mcp"] }), namespace: "" };

describe("the call audit", () => {
  it("records an allowed call with its principal, the rule that allowed it, its outcome and request id", async () => {
    const { records, calls } = await setUp([
      { name: "alice-pays", effect: "allow", when: 'principal.name == "alice"' },
    ]);
    await calls.callTool(alice, tool("pay"), { amount: 5 }, { requestId: "7" });
    expect(records).toEqual([
      expect.objectContaining({
        principalId: "alice",
        principalKind: "token",
        method: "tools/call",
        target: "pay",
        decision: "allowed",
        rule: "alice-pays",
        outcome: "ok",
        errorCode: null,
        front: "mcp",
        requestId: "7",
        arguments: null,
      }),
    ]);
    expect(records[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("records a refused call as denied by its rule, with no outcome, and the call still fails", async () => {
    const { records, calls } = await setUp([
      { name: "bob-small", effect: "deny", when: 'principal.name == "bob" && arguments.amount > 10' },
    ]);
    await expect(calls.callTool(bob, tool("pay"), { amount: 50 }, {})).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await calls.callTool(alice, tool("pay"), { amount: 50 }, {});
    expect(records.map((r) => [r.principalId, r.decision, r.rule, r.outcome, r.durationMs === null])).toEqual(
      [
        ["bob", "denied", "bob-small", null, true],
        ["alice", "allowed", "(default)", "ok", false],
      ],
    );
  });

  it("records a call of a tool the policy hides as denied by the rule that hides it", async () => {
    const { records, calls } = await setUp([
      { name: "no-echo-for-bob", effect: "deny", when: 'principal.name == "bob" && tool.name == "echo"' },
    ]);
    expect(calls.findTool(bob, "echo")).toBeUndefined();
    expect(calls.findTool(bob, "missing")).toBeUndefined();
    expect(calls.findTool(alice, "echo")).toBeDefined();
    expect(records).toEqual([
      expect.objectContaining({
        principalId: "bob",
        target: "echo",
        decision: "denied",
        rule: "no-echo-for-bob",
      }),
    ]);
  });

  it("records isError results and failures with the failure's code", async () => {
    const { records, calls } = await setUp([]);
    await calls.callTool(alice, tool("broken"), {}, {});
    await expect(calls.callTool(alice, tool("failing"), {}, {})).rejects.toThrow("down");
    expect(records.map((r) => [r.outcome, r.errorCode, r.rule])).toEqual([
      ["isError", null, null],
      ["error", "Unavailable", null],
    ]);
  });

  it("records a list only when a policy filtered it", async () => {
    const open = await setUp([]);
    open.calls.listTools(alice);
    expect(open.records).toEqual([]);
    const filtered = await setUp([{ name: "no-echo", effect: "deny", when: 'tool.name == "echo"' }]);
    expect(filtered.calls.listTools(alice).map((t) => t.name)).not.toContain("echo");
    expect(filtered.records).toEqual([expect.objectContaining({ method: "tools/list", target: null })]);
  });

  it("names the anonymous principal's kind", async () => {
    const { records, calls } = await setUp([]);
    await calls.callTool({ principal: ANONYMOUS_PRINCIPAL, namespace: "" }, tool("echo"), {}, {});
    expect(records[0]?.principalKind).toBe("anonymous");
  });

  it("keeps no arguments by default, and redacted, bounded ones when configured", async () => {
    const none = await setUp([]);
    await none.calls.callTool(alice, tool("echo"), { password: "hunter2", q: "x" }, {});
    expect(none.records[0]?.arguments).toBeNull();
    const redacted = await setUp([], { arguments: "redacted" });
    await redacted.calls.callTool(alice, tool("echo"), { password: "hunter2", q: "x" }, {});
    expect(JSON.stringify(redacted.records[0]?.arguments)).not.toContain("hunter2");
    expect(redacted.records[0]?.arguments).toMatchObject({ q: "x" });
    const big = auditedArguments({ text: "a".repeat(MAX_AUDITED_ARGUMENT_BYTES) }, "redacted");
    expect(big).toEqual({ truncated: true, bytes: expect.any(Number) });
  });
});
