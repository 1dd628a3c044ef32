import {
  type BridgeTransport,
  Code,
  type InputRequest,
  type InputResponse,
  type LogMessage,
  type Progress,
  type PromptGet,
} from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMcpTransport,
  listUpstreamCatalog,
  type McpUpstream,
  watchUpstreamCatalog,
} from "../src/index.js";
import {
  modernStdioUpstream,
  type RecordingProxy,
  type RunningFixture,
  recordingProxy,
  startHttpFixture,
} from "./support/modern.js";
import { eventually, mcpTarget, rejection, texts, toolCall } from "./support/upstreams.js";

const META_VERSION = "io.modelcontextprotocol/protocolVersion";

function promptGet(name: string, input?: PromptGet["input"]): PromptGet {
  return {
    prompt: { name, type: "fixture", messages: [] },
    arguments: {},
    ...(input ? { input } : {}),
  };
}

describe("MCP transport: a 2026-07-28 upstream over Streamable HTTP", () => {
  let fixture: RunningFixture;
  let proxy: RecordingProxy;
  let transport: BridgeTransport;

  beforeAll(async () => {
    fixture = await startHttpFixture();
    proxy = await recordingProxy(fixture.url);
    transport = createMcpTransport({ upstreamFor: () => ({ kind: "http", url: proxy.url }) });
  });

  afterAll(async () => {
    await transport?.close();
    await proxy?.close();
    await fixture?.stop();
  });

  it("is discovered once and then called statelessly: one POST per call, no initialize, no session", async () => {
    const first = await transport.callTool(toolCall("test_simple_text"), mcpTarget());
    const second = await transport.callTool(toolCall("test_simple_text"), mcpTarget());
    expect(texts(first)).toEqual(["This is a simple text response for testing."]);
    expect(texts(second)).toEqual(texts(first));
    expect(proxy.requests.map((r) => `${r.httpMethod} ${r.method}`)).toEqual([
      "POST server/discover",
      "POST tools/call",
      "POST tools/call",
    ]);
    for (const request of proxy.requests) {
      expect(request.headers["mcp-session-id"]).toBeUndefined();
      expect(request.headers["mcp-protocol-version"]).toBe("2026-07-28");
      expect(request.headers["mcp-method"]).toBe(request.method);
      const params = (request.body?.params ?? {}) as { _meta?: Record<string, unknown> };
      const meta = params._meta ?? {};
      expect(meta[META_VERSION]).toBe("2026-07-28");
      expect(meta["io.modelcontextprotocol/clientInfo"]).toMatchObject({ name: "trestle" });
    }
    expect(proxy.requests[1]?.headers["mcp-name"]).toBe("test_simple_text");
  });

  it("passes rich content through, without the upstream's own server identity in _meta", async () => {
    const result = await transport.callTool(toolCall("test_rich_result"), mcpTarget());
    expect(result.structuredContent).toEqual({ temperature: 21.5, unit: "celsius" });
    expect(result.content.map((block) => block.type)).toEqual(["text", "audio", "resource_link"]);
    expect(result._meta).toBeUndefined();
    expect(result.inputRequired).toBeUndefined();
  });

  it("closes the call's stream on cancel and on its deadline", async () => {
    const controller = new AbortController();
    const slow = transport.callTool(toolCall("test_sleep", { ms: 30_000 }), mcpTarget(), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    expect((await rejection(slow)).code).toBe(Code.Canceled);
    const deadline = await rejection(
      transport.callTool(toolCall("test_sleep", { ms: 30_000 }), mcpTarget(), { timeoutMs: 300 }),
    );
    expect(deadline.code).toBe(Code.DeadlineExceeded);
    expect(texts(await transport.callTool(toolCall("test_simple_text"), mcpTarget()))).toHaveLength(1);
  });

  it("hands progress and the request's log messages to the call", async () => {
    const progress: Progress[] = [];
    await transport.callTool(toolCall("test_tool_with_progress"), mcpTarget(), {
      onProgress: (p) => progress.push(p),
    });
    expect(progress.map((p) => p.progress)).toEqual([0, 50, 100]);
    const logs: LogMessage[] = [];
    await transport.callTool(toolCall("test_tool_with_logging"), mcpTarget(), { onLog: (m) => logs.push(m) });
    expect(logs.map((m) => m.data)).toEqual([
      "Tool execution started",
      "Tool processing data",
      "Tool execution completed",
    ]);
  });

  it("returns input_required as inputRequired, and the repeated call with the answers completes", async () => {
    const first = await transport.callTool(toolCall("test_input_required_result_elicitation"), mcpTarget());
    expect(first.content).toEqual([]);
    expect(first.inputRequired).toEqual({
      requests: {
        user_name: {
          kind: "elicitation",
          params: {
            message: "What is your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          },
        },
      },
    });
    const second = await transport.callTool(
      {
        ...toolCall("test_input_required_result_elicitation"),
        input: { responses: { user_name: { action: "accept", content: { name: "Ada" } } } },
      },
      mcpTarget(),
    );
    expect(second.inputRequired).toBeUndefined();
    expect(texts(second)).toEqual(["Hello, Ada!"]);
  });

  it("carries the upstream's request state verbatim across rounds, and a tampered one fails as the upstream says", async () => {
    const call = toolCall("test_input_required_result_multi_round");
    const round1 = await transport.callTool(call, mcpTarget());
    expect(Object.keys(round1.inputRequired?.requests ?? {})).toEqual(["step1"]);
    const state1 = round1.inputRequired?.state;
    expect(typeof state1).toBe("string");
    const round2 = await transport.callTool(
      {
        ...call,
        input: {
          responses: { step1: { action: "accept", content: { name: "Ada" } } },
          ...(state1 ? { state: state1 } : {}),
        },
      },
      mcpTarget(),
    );
    expect(Object.keys(round2.inputRequired?.requests ?? {})).toEqual(["step2"]);
    const state2 = round2.inputRequired?.state;
    expect(state2).not.toBe(state1);
    const round3 = await transport.callTool(
      {
        ...call,
        input: {
          responses: { step2: { action: "accept", content: { color: "green" } } },
          ...(state2 ? { state: state2 } : {}),
        },
      },
      mcpTarget(),
    );
    expect(texts(round3)).toEqual(["Hello, Ada! Your favorite color is green."]);

    const tampered = await rejection(
      transport.callTool(
        {
          ...call,
          input: {
            responses: { step2: { action: "accept", content: { color: "red" } } },
            state: `${state2}x`,
          },
        },
        mcpTarget(),
      ),
    );
    expect(tampered.code).toBe(Code.InvalidArgument);
    expect(tampered.findDetail("json-rpc")?.code).toBe(-32602);
  });

  it("maps every kind of input request and keeps the keys", async () => {
    const result = await transport.callTool(
      toolCall("test_input_required_result_multiple_inputs"),
      mcpTarget(),
    );
    const requests = result.inputRequired?.requests ?? {};
    expect(Object.fromEntries(Object.entries(requests).map(([key, r]) => [key, r.kind]))).toEqual({
      user_name: "elicitation",
      greeting: "sampling",
      client_roots: "roots",
    });
  });

  it("tells the upstream what the client can answer: the option's capabilities, else all with onInputRequest, else none", async () => {
    const samplingOnly = createMcpTransport({
      upstreamFor: () => fixture.upstream,
      clientCapabilities: () => ({ sampling: {} }),
    });
    try {
      const asked = await samplingOnly.callTool(
        toolCall("test_input_required_result_capabilities"),
        mcpTarget(),
      );
      expect(Object.values(asked.inputRequired?.requests ?? {}).map((r) => r.kind)).toEqual(["sampling"]);
    } finally {
      await samplingOnly.close();
    }
    // An upstream that needs a capability the call did not declare says so (-32021), with what it needs.
    const missing = await rejection(transport.callTool(toolCall("test_missing_capability"), mcpTarget()));
    expect(missing.code).toBe(Code.FailedPrecondition);
    expect(missing.findDetail("json-rpc")).toEqual({
      type: "json-rpc",
      protocol: "mcp",
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
    expect(missing.findDetail("required-client-capabilities")?.capabilities).toEqual({ sampling: {} });
    const none = await transport.callTool(toolCall("test_input_required_result_capabilities"), mcpTarget());
    expect(texts(none)).toEqual(["The client declared no capability to answer requests"]);
    const all = await transport.callTool(toolCall("test_input_required_result_capabilities"), mcpTarget(), {
      onInputRequest: async () => ({ action: "decline" }),
    });
    expect(Object.values(all.inputRequired?.requests ?? {}).map((r) => r.kind)).toEqual([
      "elicitation",
      "sampling",
      "roots",
    ]);
  });

  it("gets a prompt that needs input in two rounds", async () => {
    const getPrompt = transport.getPrompt?.bind(transport);
    if (!getPrompt) throw new Error("the MCP transport gets prompts");
    const first = await getPrompt(promptGet("test_input_required_result_prompt"), mcpTarget());
    expect(first.messages).toEqual([]);
    expect(first.inputRequired?.requests.user_context?.kind).toBe("elicitation");
    const second = await getPrompt(
      promptGet("test_input_required_result_prompt", {
        responses: { user_context: { action: "accept", content: { context: "tests" } } },
      }),
      mcpTarget(),
    );
    expect(second.messages).toEqual([
      { role: "user", content: { type: "text", text: "Use this context: tests" } },
    ]);
  });

  it("imports the catalog and hears list changes on a subscriptions/listen stream", async () => {
    const catalog = await listUpstreamCatalog(fixture.upstream);
    expect(catalog.era).toBe("modern");
    expect(catalog.protocolVersion).toBe("2026-07-28");
    expect(catalog.serverInfo.name).toBe("trestle-modern-fixture");
    expect(catalog.tools.map((t) => t.name)).toContain("test_input_required_result_elicitation");
    expect(catalog.prompts.map((p) => p.name)).toEqual(["test_input_required_result_prompt"]);
    expect(catalog.resources.map((r) => r.uri)).toEqual(["fixture://modern/readme"]);

    const changes: string[][] = [];
    const watch = await watchUpstreamCatalog(fixture.upstream, {
      onChange: (next) => changes.push(next.tools.map((t) => t.name)),
    });
    try {
      expect(watch.catalog.tools.map((t) => t.name)).not.toContain("test_dynamic_tool");
      // The listen stream opens asynchronously: toggle until a change arrives (each toggle is a change).
      for (let tries = 0; changes.length === 0 && tries < 50; tries++) {
        await transport.callTool(toolCall("test_toggle_tool"), mcpTarget());
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(changes.length).toBeGreaterThan(0);
      // Toggled an even or odd number of times: the latest listing agrees with the upstream's state.
      await eventually(() => changes.length > 0);
      const prompt = await watch.getPrompt("test_input_required_result_prompt", {});
      expect(prompt.inputRequired?.requests.user_context?.kind).toBe("elicitation");
      const expanded = await watch.getPrompt(
        "test_input_required_result_prompt",
        {},
        { input: { responses: { user_context: { action: "accept", content: { context: "watch" } } } } },
      );
      expect(expanded.messages[0]?.content).toEqual({ type: "text", text: "Use this context: watch" });
    } finally {
      await watch.close();
    }
  });

  it("mirrors arguments marked x-mcp-header as Mcp-Param headers, and does not offer a tool with invalid marks", async () => {
    const catalog = await listUpstreamCatalog(fixture.upstream);
    const tool = catalog.tools.find((t) => t.name === "test_header_param");
    expect(tool?.inputSchema.properties?.region).toMatchObject({ "x-mcp-header": "Region" });
    expect(catalog.tools.map((t) => t.name)).not.toContain("test_invalid_header_mark");
    expect(catalog.rejectedTools).toEqual([
      {
        name: "test_invalid_header_mark",
        reason: "the x-mcp-header of 'ratio' marks a parameter that is not a string, integer or boolean",
      },
    ]);
    const call = {
      tool: { ...toolCall("test_header_param").tool, inputSchema: tool?.inputSchema as never },
      arguments: { region: "Zürich", options: { verbose: true } },
    };
    const result = await transport.callTool(call, mcpTarget());
    expect(texts(result)).toEqual(["region: Zürich; verbose: true"]);
    const sent = proxy.requests.at(-1);
    expect(sent?.headers["mcp-param-region"]).toBe(`=?base64?${Buffer.from("Zürich").toString("base64")}?=`);
    expect(sent?.headers["mcp-param-verbose"]).toBe("true");
    // The upstream checks them: a call that does not know the schema sends none and is refused (-32020).
    const refused = await rejection(
      transport.callTool({ ...toolCall("test_header_param"), arguments: { region: "eu" } }, mcpTarget()),
    );
    expect(refused.findDetail("json-rpc")?.code).toBe(-32020);
  });

  it("reads resources and probes health with server/discover (2026-07-28 has no ping)", async () => {
    const read = await transport.readResource(
      {
        resource: { location: "fixture://modern/readme", type: "fixture", name: "readme" },
        uri: "fixture://modern/readme",
      },
      mcpTarget(),
    );
    expect(read.contents).toEqual([
      { uri: "fixture://modern/readme", mimeType: "text/plain", text: "The modern fixture's read-me." },
    ]);
    const before = proxy.requests.length;
    expect(await transport.probeHealth(mcpTarget())).toEqual({ state: "healthy" });
    expect(proxy.requests.slice(before).map((r) => r.method)).toEqual(["server/discover"]);
  });
});

describe("MCP transport: a 2026-07-28 upstream over stdio", () => {
  const transport = createMcpTransport({ upstreamFor: () => modernStdioUpstream() });
  afterAll(() => transport.close());

  it("calls it and runs an input_required round trip on the pooled process", async () => {
    const call = toolCall("test_input_required_result_request_state");
    const first = await transport.callTool(call, mcpTarget());
    expect(first.inputRequired?.requests.confirm?.kind).toBe("elicitation");
    const state = first.inputRequired?.state;
    const second = await transport.callTool(
      {
        ...call,
        input: {
          responses: { confirm: { action: "accept", content: { ok: true } } },
          ...(state ? { state } : {}),
        },
      },
      mcpTarget(),
    );
    expect(texts(second)[0]).toContain("state-ok");
  });

  it("cancels a call with notifications/cancelled and keeps the process for the next one", async () => {
    const controller = new AbortController();
    const slow = transport.callTool(toolCall("test_sleep", { ms: 30_000 }), mcpTarget(), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    const error = await rejection(slow);
    expect(error.code).toBe(Code.Canceled);
    const deadline = await rejection(
      transport.callTool(toolCall("test_sleep", { ms: 30_000 }), mcpTarget(), { timeoutMs: 300 }),
    );
    expect(deadline.code).toBe(Code.DeadlineExceeded);
    expect(deadline.rawMessage).toBe("The MCP server 'node' did not answer tools/call within 300 ms");
    const after = await transport.callTool(toolCall("test_simple_text"), mcpTarget());
    expect(texts(after)).toEqual(["This is a simple text response for testing."]);
  });

  it("routes progress by token on the shared pipe", async () => {
    const progress: number[] = [];
    await transport.callTool(toolCall("test_tool_with_progress"), mcpTarget(), {
      onProgress: (p) => progress.push(p.progress),
    });
    expect(progress).toEqual([0, 50, 100]);
  });

  it("imports the catalog as modern (x-mcp-header marks are HTTP's business: stdio offers every tool)", async () => {
    const catalog = await listUpstreamCatalog(modernStdioUpstream());
    expect(catalog.era).toBe("modern");
    expect(catalog.tools.length).toBeGreaterThan(10);
    expect(catalog.tools.map((t) => t.name)).toContain("test_invalid_header_mark");
    expect(catalog.rejectedTools).toBeUndefined();
  });
});

describe("MCP transport: falling back to a legacy upstream", () => {
  let fixture: RunningFixture;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    fixture = await startHttpFixture(["--legacy-only"]);
    proxy = await recordingProxy(fixture.url);
  });

  afterAll(async () => {
    await proxy?.close();
    await fixture?.stop();
  });

  it("over HTTP: probes once, initializes, and keeps the legacy verdict for later connections", async () => {
    const transport = createMcpTransport({
      upstreamFor: () => ({ kind: "http", url: proxy.url }),
      idleTimeoutMs: 100,
    });
    try {
      const result = await transport.callTool(toolCall("test_simple_text"), mcpTarget());
      expect(texts(result)).toEqual(["This is a simple text response for testing."]);
      const methods = proxy.requests.map((r) => r.method).filter((m) => m !== undefined);
      expect(methods.slice(0, 3)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
      expect(methods).toContain("tools/call");
      // The idle connection closes; the next one goes straight to initialize.
      const before = proxy.requests.length;
      await new Promise((r) => setTimeout(r, 400));
      await transport.callTool(toolCall("test_simple_text"), mcpTarget());
      const later = proxy.requests
        .slice(before)
        .map((r) => r.method)
        .filter((m) => m !== undefined);
      expect(later).not.toContain("server/discover");
      expect(later).toContain("initialize");
    } finally {
      await transport.close();
    }
  });

  it("over stdio: a server that does not know server/discover is initialized on a new process", async () => {
    const catalog = await listUpstreamCatalog(modernStdioUpstream(["--legacy-only"]));
    expect(catalog.era).toBe("legacy");
    expect(catalog.protocolVersion === undefined || catalog.protocolVersion < "2026-07-28").toBe(true);
    const transport = createMcpTransport({ upstreamFor: () => modernStdioUpstream(["--legacy-only"]) });
    try {
      const result = await transport.callTool(toolCall("test_simple_text"), mcpTarget());
      expect(texts(result)).toEqual(["This is a simple text response for testing."]);
    } finally {
      await transport.close();
    }
  });

  it("refuses to send answers to a legacy upstream, which has no input_required round trip", async () => {
    const transport = createMcpTransport({ upstreamFor: () => fixture.upstream });
    try {
      const error = await rejection(
        transport.callTool(
          {
            ...toolCall("test_input_required_result_elicitation"),
            input: { responses: { user_name: { action: "decline" } } },
          },
          mcpTarget(),
        ),
      );
      expect(error.code).toBe(Code.FailedPrecondition);
    } finally {
      await transport.close();
    }
  });
});

/** The legacy upstream's requests for input during a call reach the call's onInputRequest, on every kind of connection. */
describe("MCP transport: a legacy upstream's sampling request", () => {
  let fixture: RunningFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture(["--legacy-only"]);
  });
  afterAll(() => fixture?.stop());

  const answering =
    (answer: string, asked: InputRequest[] = []) =>
    async (request: InputRequest): Promise<InputResponse> => {
      asked.push(request);
      return {
        action: "accept",
        result: { role: "assistant", model: "test-model", content: { type: "text", text: answer } },
      };
    };

  const upstreams: [string, () => McpUpstream][] = [
    ["shared HTTP session", () => fixture.upstream],
    ["pooled stdio process", () => modernStdioUpstream(["--legacy-only"])],
    ["per-call stdio process", () => modernStdioUpstream(["--legacy-only"], { mode: "per-call" })],
  ];

  for (const [name, upstream] of upstreams) {
    it(`reaches onInputRequest and the answer reaches the upstream (${name})`, async () => {
      const transport = createMcpTransport({ upstreamFor: () => upstream() });
      try {
        const asked: InputRequest[] = [];
        const result = await transport.callTool(
          toolCall("test_sampling_request", { question: "Capital of France?" }),
          mcpTarget(),
          { onInputRequest: answering("Paris", asked) },
        );
        expect(texts(result)).toEqual(["The model said: Paris"]);
        expect(asked).toEqual([
          {
            kind: "sampling",
            params: expect.objectContaining({
              messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
            }),
          },
        ]);
        // A call that cannot answer does not tell the upstream it can: the upstream's tool reports it.
        const unable = await transport.callTool(toolCall("test_sampling_request"), mcpTarget());
        expect(unable.isError).toBe(true);
        expect(texts(unable)).toEqual(["The client cannot answer sampling/createMessage"]);
      } finally {
        await transport.close();
      }
    });
  }

  it("ties each request to its own call when calls run at once on one HTTP session", async () => {
    const transport = createMcpTransport({ upstreamFor: () => fixture.upstream });
    try {
      const answers = ["Paris", "Rome", "Madrid", "Lisbon"];
      const results = await Promise.all(
        answers.map((answer) =>
          transport.callTool(toolCall("test_sampling_request", { question: answer }), mcpTarget(), {
            onInputRequest: async (request) => {
              const question = (request.params.messages as { content: { text: string } }[])[0]?.content.text;
              // Each call answers with what it asked: a request routed to another call would mismatch.
              await new Promise((r) => setTimeout(r, 20));
              return answering(question === answer ? answer : `wrong call (${question})`)(request);
            },
          }),
        ),
      );
      expect(results.map((r) => texts(r)[0])).toEqual(answers.map((a) => `The model said: ${a}`));
    } finally {
      await transport.close();
    }
  });
});
