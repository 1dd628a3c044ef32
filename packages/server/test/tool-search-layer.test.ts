import type { ToolReference } from "@trestle/core";
import { describe, expect, it } from "vitest";
import type { CallService } from "../src/calls/call-service.js";
import { callerPrincipal } from "../src/calls/caller.js";
import { withToolSearch } from "../src/calls/tool-search-layer.js";
import { toMcpTool } from "../src/mcp/tool-listing.js";

const tool = (name: string, description: string): ToolReference => ({
  name,
  description,
  type: "svc",
  uri: `svc://${name}`,
  inputSchema: { type: "object", properties: {} },
});
const catalog = [
  tool("jira_create_issue", "Creates an issue in a Jira project"),
  tool("stripe_refund_payment", "Refunds a Stripe payment, in full or in part"),
  tool("slack_send_message", "Sends a message to a Slack channel"),
  tool("secret_refund_override", "Refunds a payment without the usual checks"),
];
const codeTool = tool("execute_code", "Runs code");
const alice = { principal: callerPrincipal({ id: "alice" }), namespace: "big" };
const intern = { principal: callerPrincipal({ id: "intern" }), namespace: "big" };
const small = { principal: callerPrincipal({ id: "alice" }), namespace: "" };

/** A call service over one catalog in which `intern` may not see `secret_refund_override`. */
function fakeCalls(): CallService & { called: string[] } {
  const called: string[] = [];
  const visible = (caller: typeof alice) =>
    [...catalog, codeTool].filter((t) => caller.principal.id !== "intern" || !t.name.startsWith("secret"));
  return {
    called,
    codeExecutionToolName: "execute_code",
    engines: () => [],
    listTools: (caller: typeof alice) => visible(caller),
    findTool: (caller: typeof alice, name: string) => visible(caller).find((t) => t.name === name),
    isCodeExecution: (t: ToolReference) => t === codeTool,
    callTool: async (_caller: typeof alice, t: ToolReference) => {
      called.push(t.name);
      return { content: [{ type: "text", text: `called ${t.name}` }] };
    },
  } as unknown as CallService & { called: string[] };
}

describe("tool search over the call service", () => {
  it("lists search_tools, call_tool and the code execution tool where it is on, every tool elsewhere", () => {
    const calls = withToolSearch(
      fakeCalls(),
      { listTools: () => catalog, getNamespace: () => undefined },
      { enabled: false, namespaces: ["big"], maxResults: 10 },
      toMcpTool,
    );
    expect(calls.listTools(alice).map((t) => t.name)).toEqual(["search_tools", "call_tool", "execute_code"]);
    expect(calls.listTools(small).map((t) => t.name)).toContain("jira_create_issue");
    expect(calls.findTool(small, "search_tools")).toBeUndefined();
  });

  it("turns on for a namespace labelled trestle.io/tool-search=true through the management API", () => {
    const calls = withToolSearch(
      fakeCalls(),
      {
        listTools: () => catalog,
        getNamespace: (name) =>
          name === "big" ? { name, labels: { "trestle.io/tool-search": "true" } } : undefined,
      },
      { enabled: false, namespaces: [], maxResults: 10 },
      toMcpTool,
    );
    expect(calls.listTools(alice).map((t) => t.name)).toContain("search_tools");
    expect(calls.listTools(small).map((t) => t.name)).toContain("jira_create_issue");
  });

  it("turns on past the threshold", () => {
    const calls = withToolSearch(
      fakeCalls(),
      { listTools: () => catalog, getNamespace: () => undefined },
      { enabled: false, threshold: 3, namespaces: [], maxResults: 10 },
      toMcpTool,
    );
    expect(calls.listTools(alice).map((t) => t.name)).toContain("search_tools");
    expect(calls.listTools(intern).map((t) => t.name)).toContain("jira_create_issue");
  });

  it("finds the best tool, never one the caller may not see, and calls by name or through call_tool", async () => {
    const inner = fakeCalls();
    const calls = withToolSearch(
      inner,
      { listTools: () => catalog, getNamespace: () => undefined },
      { enabled: true, namespaces: [], maxResults: 10 },
      toMcpTool,
    );
    const search = calls.findTool(alice, "search_tools") as ToolReference;
    const found = await calls.callTool(alice, search, { query: "refund a Stripe payment" }, {});
    const names = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names[0]).toBe("stripe_refund_payment");
    expect(names).toContain("secret_refund_override");
    const internFound = await calls.callTool(intern, search, { query: "refund a payment" }, {});
    expect(JSON.stringify(internFound.structuredContent)).not.toContain("secret_refund_override");

    const callTool = calls.findTool(intern, "call_tool") as ToolReference;
    await calls.callTool(intern, callTool, { name: "jira_create_issue", arguments: {} }, {});
    const refused = await calls.callTool(intern, callTool, { name: "secret_refund_override" }, {});
    expect(refused).toMatchObject({
      isError: true,
      content: [{ text: "Unknown tool 'secret_refund_override'" }],
    });
    await calls.callTool(alice, calls.findTool(alice, "slack_send_message") as ToolReference, {}, {});
    expect(inner.called).toEqual(["jira_create_issue", "slack_send_message"]);
    const bad = await calls.callTool(alice, search, { query: "" }, {});
    expect(bad.isError).toBe(true);
  });
});
