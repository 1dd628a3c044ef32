import type { ResourceReference, ToolReference } from "@trestle/core";
import { describe, expect, it } from "vitest";
import type { CallService } from "../src/calls/call-service.js";
import { callerPrincipal } from "../src/calls/caller.js";
import { PYTHON_STUB_URI, TYPESCRIPT_STUB_URI, withCodeModeStubs } from "../src/calls/code-mode-stubs.js";
import { toMcpTool } from "../src/mcp/tool-listing.js";

const tool = (name: string): ToolReference => ({
  name,
  description: `Does ${name}`,
  type: "svc",
  uri: `svc://${name}`,
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
});
const codeTool = tool("execute_code");
const alice = { principal: callerPrincipal({ id: "alice" }), namespace: "" };
const intern = { principal: callerPrincipal({ id: "intern" }), namespace: "" };

function fakeCalls(
  catalog: { tools: ToolReference[] },
  languages: string[],
): CallService & { called: ToolReference[] } {
  const called: ToolReference[] = [];
  const visible = (caller: typeof alice) =>
    [...catalog.tools, codeTool].filter((t) => caller.principal.id !== "intern" || t.name !== "get-secret");
  return {
    called,
    engines: () => languages.map((language) => ({ engineType: "trestle", language })),
    listTools: (caller: typeof alice) => visible(caller),
    isCodeExecution: (t: ToolReference) => t === codeTool,
    callTool: async (_caller: typeof alice, t: ToolReference) => {
      called.push(t);
      return { content: [] };
    },
    listResources: () => [] as ResourceReference[],
    findResource: () => undefined,
  } as unknown as CallService & { called: ToolReference[] };
}

describe("code mode's stubs", () => {
  it("describes where the stubs are in the code tool's description, and serves them per caller", async () => {
    const inner = fakeCalls({ tools: [tool("get-weather"), tool("get-secret")] }, ["javascript", "python"]);
    const calls = withCodeModeStubs(inner, toMcpTool);
    const listed = calls.listTools(alice);
    const described = listed.find((t) => t.name === "execute_code") as ToolReference;
    expect(described.description).toContain(TYPESCRIPT_STUB_URI);
    expect(described.description).toContain(PYTHON_STUB_URI);
    expect(described.description).toContain("await tools.get_secret(");
    expect(calls.isCodeExecution(described)).toBe(true);
    await calls.callTool(alice, described, {}, {});
    expect(inner.called).toEqual([codeTool]);

    expect(calls.listResources(alice).map((r) => r.location)).toEqual([TYPESCRIPT_STUB_URI, PYTHON_STUB_URI]);
    const read = async (caller: typeof alice, uri: string) => {
      const resource = calls.findResource(caller, uri) as ResourceReference;
      const [contents] = await calls.readResource(caller, resource, uri, {});
      return (contents as { text: string }).text;
    };
    expect(await read(alice, TYPESCRIPT_STUB_URI)).toContain("get_secret(args: {");
    expect(await read(intern, TYPESCRIPT_STUB_URI)).not.toContain("get_secret");
    expect(await read(alice, PYTHON_STUB_URI)).toContain("def get_weather(self, *, city: str)");
  });

  it("follows catalog changes, and offers nothing without an engine or Python stub without Python", async () => {
    const catalog = { tools: [tool("get-weather")] };
    const calls = withCodeModeStubs(fakeCalls(catalog, ["javascript"]), toMcpTool);
    expect(calls.listResources(alice).map((r) => r.location)).toEqual([TYPESCRIPT_STUB_URI]);
    expect(calls.findResource(alice, PYTHON_STUB_URI)).toBeUndefined();
    catalog.tools = [tool("add-numbers")];
    const resource = calls.findResource(alice, TYPESCRIPT_STUB_URI) as ResourceReference;
    const [contents] = await calls.readResource(alice, resource, TYPESCRIPT_STUB_URI, {});
    expect((contents as { text: string }).text).toContain("add_numbers(");

    const none = withCodeModeStubs(
      {
        ...fakeCalls(catalog, []),
        listTools: () => catalog.tools,
      } as unknown as CallService,
      toMcpTool,
    );
    expect(none.listResources(alice)).toEqual([]);
    expect(none.findResource(alice, TYPESCRIPT_STUB_URI)).toBeUndefined();
  });
});
