import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  echoTool,
  fixtureCapability,
  type RouterProcess,
  repoRoot,
  serviceHealthy,
  startNode,
  startRouter,
  stopAll,
} from "./support/processes.js";

/**
 * Code mode end to end: a real router with the built-in engine, and programs (JavaScript and Python) that call the
 * namespace's tools through `tools`. Two principals: `alice` may call every tool; `intern` may not see `greeting`
 * and may not ask `get-weather` about one city (a rule that reads the arguments, so it decides at call time).
 * Programs get at most 5 tool calls each.
 */

const ADMIN = "code-mode-admin-token-4c8e1a9f2b7d3e60";
const ALICE = "code-mode-alice-token-9a1c7e3f5b2d4e68";
const INTERN = "code-mode-intern-token-2f6b8d0a4c1e3f75";
const REGISTER = "code-mode-register-token-7d3a1f9c5e2b4a86";
const admin = { authorization: `Bearer ${ADMIN}` };

/** The tools of the namespace with tool search: products and what each of their tools does. */
const BIG_NAMESPACE_TOOLS: [string, string][] = [];
for (const [product, actions] of [
  [
    "jira",
    ["create an issue", "list issues of a project", "transition an issue", "add a comment to an issue"],
  ],
  ["github", ["open a pull request", "list repositories", "merge a pull request", "create a release"]],
  ["slack", ["send a message to a channel", "list channels", "upload a file", "set the channel topic"]],
  ["stripe", ["refund a payment", "create a customer", "list invoices", "cancel a subscription"]],
  [
    "pagerduty",
    [
      "acknowledge an incident",
      "list on-call schedules",
      "resolve an incident",
      "create a maintenance window",
    ],
  ],
  ["gcal", ["create an event", "list events of a day", "delete an event", "find a free slot"]],
] as const) {
  for (const action of actions) {
    const words = action.split(" ");
    const name = `${product}_${words[0]}_${words.at(-1)}`;
    BIG_NAMESPACE_TOOLS.push([name, `${product}: ${action}.`]);
  }
}

let router: RouterProcess;
let alice: Client;
let intern: Client;

async function connect(token: string, path = "/mcp"): Promise<Client> {
  const client = new Client({ name: "code-mode-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${router.url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

beforeAll(async () => {
  router = await startRouter(["--builtins", "--root", tmpdir()], {
    TRESTLE_TOKENS: JSON.stringify([
      { name: "ops", token: ADMIN, scopes: ["admin"] },
      { name: "alice", token: ALICE, scopes: ["mcp"] },
      { name: "intern", token: INTERN, scopes: ["mcp"] },
      { name: "fixtures", token: REGISTER, scopes: ["register"] },
    ]),
    TRESTLE_POLICIES: JSON.stringify([
      {
        name: "no-greeting-for-interns",
        effect: "deny",
        when: 'principal.name == "intern" && tool.name == "greeting"',
      },
      {
        name: "interns-stay-home",
        effect: "deny",
        when: 'principal.name == "intern" && tool.name == "get-weather" && arguments.city == "Reykjavik"',
      },
    ]),
    TRESTLE_CODE_MODE: JSON.stringify({ maxCallsPerRun: 5 }),
    TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
    TRESTLE_TOOL_SEARCH: JSON.stringify({ namespaces: ["big"] }),
  });
  // Started here rather than with startFixtureCapability: its 30 s wait is too short on a loaded machine.
  const fixture = startNode(fixtureCapability, [
    "--router",
    router.url,
    "--service-name",
    "fixture",
    "--service-type",
    "tool-invoker",
    "--token",
    REGISTER,
  ]);
  await fixture.waitForLine((line) => line.includes('"ready"'), 120_000);
  await Promise.all([
    serviceHealthy(router.url, "fixture", admin),
    serviceHealthy(router.url, "trestle", admin),
  ]);
  await api(router.url, "POST", "/api/v1/tools", echoTool("get-weather", "fixture"), admin);
  await api(
    router.url,
    "POST",
    "/api/v1/tools",
    {
      name: "greeting",
      description: "Says hello",
      uri: "fixture://simple-text",
      type: "fixture",
      inputSchema: { type: "object" },
    },
    admin,
  );
  // Namespace `mixed`: an MCP server behind a forward, its tools prefixed `fx_`, beside a gRPC capability's tool.
  await api(router.url, "POST", "/api/v1/namespaces", { name: "mixed" }, admin);
  await api(
    router.url,
    "POST",
    "/api/v1/tools",
    { ...echoTool("get-weather", "fixture"), namespace: "mixed" },
    admin,
  );
  await api(
    router.url,
    "POST",
    "/api/v1/forwards",
    {
      name: "fixture-mcp",
      namespace: "mixed",
      prefix: "fx_",
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [join(repoRoot, "packages", "transport-mcp", "test", "fixtures", "fixture-server.mjs")],
        // The fixture imports the MCP SDK from the workspace: its sandbox shows it the cwd.
        cwd: repoRoot,
      },
    },
    admin,
  );
  await api(router.url, "POST", "/api/v1/namespaces", { name: "big" }, admin);
  for (const [name, description] of BIG_NAMESPACE_TOOLS) {
    await api(
      router.url,
      "POST",
      "/api/v1/tools",
      { ...echoTool(name, "fixture"), description, namespace: "big" },
      admin,
    );
  }
  alice = await connect(ALICE);
  intern = await connect(INTERN);
}, 180_000);

afterAll(async () => {
  await alice?.close();
  await intern?.close();
  await stopAll();
});

interface RunOutput {
  status?: string;
  exitCode?: number | null;
  stdout: string;
  stderr: string;
}

async function run(client: Client, language: "javascript" | "python", code: string): Promise<RunOutput> {
  const result = await client.callTool(
    { name: "execute_code", arguments: { language, code, timeoutMs: 20_000 } },
    CallToolResultSchema,
    { timeout: 60_000 },
  );
  const out = result.structuredContent as unknown as RunOutput | undefined;
  // The program must have run: a refusal before it started would prove nothing.
  if (!out || (out.status !== "completed" && out.status !== "failed"))
    throw new Error(JSON.stringify(result));
  return out;
}

describe("code mode: tools inside programs", () => {
  it("runs a JavaScript program that calls two tools and combines their results", async () => {
    const out = await run(
      alice,
      "javascript",
      `(async () => {
        const weather = JSON.parse(await tools.get_weather({ city: "Oslo" }));
        const hello = await tools.greeting({});
        console.log(JSON.stringify({ city: weather.arguments.city, hello }));
      })();`,
    );
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout)).toEqual({
      city: "Oslo",
      hello: "This is a simple text response for testing.",
    });
    expect(out.status).toBe("completed");
  });

  it("runs a Python program that calls two tools and combines their results", async () => {
    const out = await run(
      alice,
      "python",
      [
        "import json",
        "weather = json.loads(tools.get_weather(city='Bergen'))",
        "hello = tools.greeting()",
        "print(json.dumps({'city': weather['arguments']['city'], 'hello': hello}))",
      ].join("\n"),
    );
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout)).toEqual({
      city: "Bergen",
      hello: "This is a simple text response for testing.",
    });
  });

  it("links each inner call to the program's run in the events, with the caller's principal", async () => {
    const events = await api<
      { toolName: string; type: string; principal?: string; codeRun?: string; kind: string }[]
    >(router.url, "GET", "/api/v2/tool-calls/history?limit=200", undefined, admin);
    const python = events.filter((e) => e.type === "started" && e.kind === "code-execution").at(-1);
    expect(python?.codeRun).toMatch(/^[0-9a-f-]{36}$/);
    const inner = events.filter(
      (e) => e.type === "completed" && e.codeRun === python?.codeRun && e.kind === "tool",
    );
    expect(inner.map((e) => e.toolName).sort()).toEqual(["get-weather", "greeting"]);
    expect(inner.every((e) => e.principal === "alice")).toBe(true);
  });

  it("calls a gRPC capability's tool and an MCP forward's tool in one run, in both languages", async () => {
    const mixed = await connect(ALICE, "/mixed/mcp");
    const js = await run(
      mixed,
      "javascript",
      `(async () => {
        const weather = JSON.parse(await tools.get_weather({ city: "Tromsø" }));
        const echoed = await tools.fx_echo({ text: "from the forward" });
        console.log(JSON.stringify({ city: weather.arguments.city, echoed }));
      })();`,
    );
    expect(js.stderr).toBe("");
    expect(JSON.parse(js.stdout)).toEqual({ city: "Tromsø", echoed: "from the forward" });
    const py = await run(
      mixed,
      "python",
      [
        "import json",
        "weather = json.loads(tools.get_weather(city='Alta'))",
        "echoed = tools.fx_echo(text='from the forward')",
        "print(json.dumps({'city': weather['arguments']['city'], 'echoed': echoed}))",
      ].join("\n"),
    );
    expect(py.stderr).toBe("");
    expect(JSON.parse(py.stdout)).toEqual({ city: "Alta", echoed: "from the forward" });
    await mixed.close();
  });

  it("raises ToolError with the message for an unknown tool, in both languages", async () => {
    const js = await run(
      alice,
      "javascript",
      `(async () => {
        try { await tools.call("no_such_tool", {}); console.log("no error"); }
        catch (e) { console.log(e instanceof ToolError, e.tool, e.message); }
      })();`,
    );
    expect(js.stdout.trim()).toBe("true no_such_tool Unknown tool 'no_such_tool'");
    const py = await run(
      alice,
      "python",
      ["try:", "    tools.call('no_such_tool', {})", "except ToolError as e:", "    print(e.tool, e)"].join(
        "\n",
      ),
    );
    expect(py.stdout.trim()).toBe("no_such_tool Unknown tool 'no_such_tool'");
  });

  it("applies the caller's policy inside the program: refused for intern, allowed for alice", async () => {
    const program = `(async () => {
      const out = [];
      for (const [name, args] of [["greeting", {}], ["get-weather", { city: "Reykjavik" }], ["get-weather", { city: "Oslo" }]]) {
        try { const r = await tools.call(name, args); out.push("ok " + name); }
        catch (e) { out.push("refused " + name + ": " + e.message); }
      }
      console.log(out.join("\\n"));
    })();`;
    const refused = await run(intern, "javascript", program);
    expect(refused.stdout.trim().split("\n")).toEqual([
      "refused greeting: Unknown tool 'greeting'",
      expect.stringContaining(
        "refused get-weather: Refused by the router's policy (rule 'interns-stay-home')",
      ),
      "ok get-weather",
    ]);
    const allowed = await run(alice, "javascript", program);
    expect(allowed.stdout.trim().split("\n")).toEqual(["ok greeting", "ok get-weather", "ok get-weather"]);
    // The intern's program is not even offered the tool it may not see.
    const offered = await run(intern, "javascript", "console.log(Object.keys(tools).sort().join(','))");
    expect(offered.stdout.trim()).toBe("get_weather");
  });

  it("stops a program at its tool-call limit with a clear error", async () => {
    const out = await run(
      alice,
      "python",
      [
        "done = 0",
        "try:",
        "    for i in range(8):",
        "        tools.greeting()",
        "        done += 1",
        "except ToolError as e:",
        "    print(done, e)",
      ].join("\n"),
    );
    expect(out.stdout.trim()).toBe("5 Too many tool calls: a program may make 5 (codeMode.maxCallsPerRun)");
  });

  it("gives the program no network path to the router and no run token", async () => {
    const port = new URL(router.url).port;
    const out = await run(
      alice,
      "python",
      [
        "import os, socket",
        "try:",
        `    socket.create_connection(('127.0.0.1', ${port}), timeout=3)`,
        "    print('CONNECTED')",
        "except OSError as e:",
        "    print('REFUSED')",
        "print(','.join(sorted(os.environ)))",
        "seen = ''",
        "for pid in os.listdir('/proc'):",
        "    if pid.isdigit():",
        "        for part in ('environ', 'cmdline'):",
        "            try: seen += open(f'/proc/{pid}/{part}', 'rb').read().decode('utf8', 'replace')",
        "            except OSError: pass",
        // Every file of the work directory but the program itself, whose text names what it looks for.
        "for name in os.listdir('.'):",
        "    if name != 'main.py': seen += open(name, encoding='utf8', errors='replace').read()",
        // The callback address and the metadata names: what a program would need to use a token.
        `print('LEAK' if any(s in seen for s in ('127.0.0.1:' + '${port}', 'x-' + 'trestle', 'Bear' + 'er')) else 'clean')`,
      ].join("\n"),
    );
    const [network, environment, scan] = out.stdout.trim().split("\n");
    expect(network).toBe("REFUSED");
    expect(environment).toMatch(/^HOME,(LANG,)?PATH,TMPDIR$/);
    expect(scan).toBe("clean");
  });

  it("refuses the code-mode endpoint to anyone without a live run's capability, router tokens included", async () => {
    for (const token of [ALICE, ADMIN, "A".repeat(43)]) {
      const response = await fetch(`${router.url}/internal/code-mode/v1/call`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "greeting", arguments: {} }),
      });
      expect(response.status).toBe(401);
    }
  });
});

describe("typed stubs", () => {
  it("publishes the caller's tools as TypeScript and Python stubs, named in execute_code's description", async () => {
    const listed = await alice.listTools();
    const execute = listed.tools.find((t) => t.name === "execute_code");
    expect(execute?.description).toContain("trestle://code-mode/tools.d.ts");
    expect(execute?.description).toContain("await tools.");
    const resources = await alice.listResources();
    expect(resources.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(["trestle://code-mode/tools.d.ts", "trestle://code-mode/tools.pyi"]),
    );
    const read = async (client: Client, uri: string) => {
      const result = await client.readResource({ uri });
      return (result.contents[0] as { text: string }).text;
    };
    const aliceTs = await read(alice, "trestle://code-mode/tools.d.ts");
    expect(aliceTs).toContain("get_weather(");
    expect(aliceTs).toContain("greeting(");
    expect(await read(alice, "trestle://code-mode/tools.pyi")).toContain("def get_weather(");
    // The stubs follow the list policy: the intern's hold no tool it may not see.
    const internTs = await read(intern, "trestle://code-mode/tools.d.ts");
    expect(internTs).toContain("get_weather(");
    expect(internTs).not.toContain("greeting");
  });
});

describe("tool search", () => {
  it("lists search_tools, call_tool and the code execution tool instead of every tool", async () => {
    const client = await connect(ALICE, "/big/mcp");
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name).sort()).toEqual(["call_tool", "execute_code", "search_tools"]);
      const plain = await alice.listTools();
      expect(plain.tools.map((t) => t.name)).toContain("get-weather");
    } finally {
      await client.close();
    }
  });

  it("finds the right tool, and calls it through call_tool or by its name", async () => {
    const client = await connect(ALICE, "/big/mcp");
    try {
      const found = await client.callTool(
        { name: "search_tools", arguments: { query: "refund a customer's Stripe payment", limit: 3 } },
        CallToolResultSchema,
      );
      const tools = (found.structuredContent as { tools: { name: string }[] }).tools;
      expect(tools[0]?.name).toBe("stripe_refund_payment");
      expect(tools.length).toBeLessThanOrEqual(3);
      const pager = await client.callTool(
        { name: "search_tools", arguments: { query: "ack the PagerDuty incident" } },
        CallToolResultSchema,
      );
      expect((pager.structuredContent as { tools: { name: string }[] }).tools[0]?.name).toBe(
        "pagerduty_acknowledge_incident",
      );
      const viaCallTool = await client.callTool(
        { name: "call_tool", arguments: { name: "stripe_refund_payment", arguments: { city: "Oslo" } } },
        CallToolResultSchema,
      );
      expect(JSON.stringify(viaCallTool.content)).toContain("Oslo");
      const byName = await client.callTool(
        { name: "stripe_refund_payment", arguments: { city: "Bergen" } },
        CallToolResultSchema,
      );
      expect(JSON.stringify(byName.content)).toContain("Bergen");
    } finally {
      await client.close();
    }
  });
});
