import { join } from "node:path";
import { type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  artifactText,
  sendMessageParams,
  statusText,
  textPart,
  toolCallPart,
} from "@trestle/transport-a2a/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  echoTool,
  eventually,
  type RouterProcess,
  repoRoot,
  serviceHealthy,
  startFixtureCapability,
  startNode,
  startRouter,
  stopAll,
} from "../support/processes.js";

/** The A2A transport's fixture agent: a real @a2a-js/sdk agent with one skill per behaviour. */
const FIXTURE_AGENT = join(repoRoot, "packages", "transport-a2a", "test", "fixtures", "fixture-agent.mjs");

interface CallEvent {
  type: string;
  toolName: string;
  eventId: string;
  translation?: {
    client: { protocol: string; version?: string; method: string };
    backend: { protocol: string; method: string };
    notes: { action: string; what: string }[];
  };
}

async function rpc(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { error?: { code: number; message: string }; result?: unknown };
}

async function history(routerUrl: string): Promise<CallEvent[]> {
  return api<CallEvent[]>(routerUrl, "GET", "/api/v2/tool-calls/history?limit=200");
}

describe("an @a2a-js/sdk client calling the router as an A2A agent", () => {
  let router: RouterProcess;
  let a2a: Client;
  let agentUrl = "";

  beforeAll(async () => {
    router = await startRouter();
    await Promise.all([
      startFixtureCapability(router.url, [
        "--service-name",
        "fixture-grpc",
        "--service-type",
        "tool-invoker",
      ]),
      startFixtureCapability(router.url, ["--engine", "fixture"]),
    ]);
    await api(router.url, "POST", "/api/v1/tools", echoTool("echo", "fixture-grpc"));
    await api(router.url, "POST", "/api/v1/tools", {
      name: "sleeper",
      uri: "fixture://sleep?ms=60000",
      type: "fixture-grpc",
      inputSchema: { type: "object", properties: {} },
    });
    await serviceHealthy(router.url, "fixture-grpc");
    await serviceHealthy(router.url, "fixture");
    // A namespace with one tool: a text-only message calls it.
    await api(router.url, "POST", "/api/v1/namespaces", { name: "solo" });
    await api(router.url, "POST", "/api/v1/tools", {
      name: "forecast",
      uri: "fixture://echo",
      type: "fixture-grpc",
      namespace: "solo",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    // An A2A agent behind the router too: its skills are tools of the router's own agent.
    const agent = startNode(FIXTURE_AGENT, []);
    const ready = JSON.parse(await agent.waitForLine((l) => l.includes('"ready"'), 30_000)) as {
      url: string;
    };
    agentUrl = ready.url;
    await api(router.url, "POST", "/api/v1/forwards", {
      name: "helper",
      prefix: "h_",
      a2a: { url: ready.url },
    });
    a2a = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      `${router.url}/a2a`,
    );
  }, 120_000);

  afterAll(stopAll);

  it("serves the namespace's card: its tools and the code execution tool as skills, the endpoint it names", async () => {
    const card = await a2a.getAgentCard();
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${router.url}/a2a`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((s) => s.id)).toEqual(expect.arrayContaining(["echo", "sleeper", "execute_code"]));
    // The default namespace's card is at the root's well-known path too, where a client given the router's URL looks.
    const root = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      router.url,
    );
    expect((await root.getAgentCard()).name).toBe("Trestle");
  });

  it("calls a tool named in a data part, with the translation report on its event", async () => {
    const reply = (await a2a.sendMessage(
      sendMessageParams([toolCallPart("echo", { city: "Oslo" })]),
    )) as Task;
    expect(reply.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.parse(artifactText(reply)).arguments).toEqual({ city: "Oslo" });
    const fetched = await a2a.getTask({ tenant: "", id: reply.id, historyLength: undefined });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const event = await eventually(
      async () => (await history(router.url)).find((e) => e.toolName === "echo" && e.type === "completed"),
      15_000,
      "the echo call's event",
    );
    expect(event.translation?.client).toEqual({ protocol: "a2a", version: "1.0", method: "SendMessage" });
    expect(event.translation?.backend).toEqual({ protocol: "grpc", method: "InvokeTool" });
    expect(event.translation?.notes.map((n) => n.what)).toContain("A2A message");
  });

  it("streams code execution output as artifact updates before the run ends", async () => {
    const events: StreamResponse[] = [];
    let firstChunkAt: number | undefined;
    for await (const event of a2a.sendMessageStream(
      sendMessageParams([
        toolCallPart("execute_code", { language: "sim", code: "one\ntwo\nthree", arguments: ["300"] }),
      ]),
    )) {
      if (event.payload?.$case === "artifactUpdate") firstChunkAt ??= Date.now();
      events.push(event);
    }
    const kinds = events.map((e) => e.payload?.$case);
    const chunks = events.flatMap((e) =>
      e.payload?.$case === "artifactUpdate" && e.payload.value.artifact?.artifactId === "stdout"
        ? e.payload.value.artifact.parts.flatMap((p) =>
            p.content?.$case === "text" ? [p.content.value] : [],
          )
        : [],
    );
    expect(chunks.map((c) => c.split(" @")[0])).toEqual(["one", "two", "three"]);
    // The engine stamps each line with when it left: the first reached this client before the last was written.
    const lastSentAt = Number(chunks.at(-1)?.split(" @")[1]);
    expect(firstChunkAt).toBeLessThan(lastSentAt);
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe("statusUpdate");
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Each line came as its own event, before the final status.
    expect(kinds.indexOf("artifactUpdate")).toBeLessThan(kinds.lastIndexOf("statusUpdate"));
    const event = await eventually(
      async () =>
        (await history(router.url)).find((e) => e.toolName === "execute_code" && e.type === "completed"),
      15_000,
      "the code execution's event",
    );
    expect(event.translation?.client).toEqual({
      protocol: "a2a",
      version: "1.0",
      method: "SendStreamingMessage",
    });
  });

  it("cancels a running call with CancelTask", async () => {
    const stream = a2a.sendMessageStream(sendMessageParams([toolCallPart("sleeper", {})]));
    let taskId = "";
    const seen: StreamResponse[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (
        event.payload?.$case === "statusUpdate" &&
        event.payload.value.status?.state === TaskState.TASK_STATE_WORKING
      ) {
        taskId = event.payload.value.taskId;
        const cancelled = await a2a.cancelTask({ tenant: "", id: taskId, metadata: undefined });
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      }
    }
    expect(taskId).not.toBe("");
    expect((await a2a.getTask({ tenant: "", id: taskId, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await eventually(
      async () => (await history(router.url)).find((e) => e.toolName === "sleeper" && e.type === "failed"),
      15_000,
      "the cancelled call's event",
    );
  });

  it("carries an input-required turn of a tool (here an A2A agent behind the router) in the same task", async () => {
    const first = (await a2a.sendMessage(
      sendMessageParams([toolCallPart("h_converse", { message: "hi" })]),
    )) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(statusText(first.status)).toBe("What is your name?");
    const second = (await a2a.sendMessage(
      sendMessageParams([textPart("Ada")], { taskId: first.id, contextId: first.contextId }),
    )) as Task;
    expect(second.id).toBe(first.id);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(second)).toMatch(/^Hello, Ada! \(task /);
  });

  it("sends a text-only message to a namespace's only tool, and refuses one where the tool is ambiguous", async () => {
    const solo = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      `${router.url}/solo/a2a/.well-known/agent-card.json`,
      "",
    );
    // One catalog tool (and the code execution tool, which a text alone cannot call).
    expect((await solo.getAgentCard()).skills.map((s) => s.id)).toEqual(["forecast", "execute_code"]);
    const reply = (await solo.sendMessage(sendMessageParams([textPart("Bergen")]))) as Task;
    expect(reply.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.parse(artifactText(reply)).arguments).toEqual({ city: "Bergen" });
    const ambiguous = (await a2a.sendMessage(sendMessageParams([textPart("Bergen")]))) as Task;
    expect(ambiguous.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(statusText(ambiguous.status)).toContain('Name the tool: send a data part {"tool": NAME');
  });

  it("serves a v0.3 client: its card, message/send and tasks/get with v0.3 shapes and no A2A-Version", async () => {
    const card = (await (await fetch(`${router.url}/a2a/.well-known/agent-card.json`)).json()) as {
      protocolVersion: string;
      url: string;
      skills: { id: string }[];
    };
    expect(card.protocolVersion).toBe("0.3.0");
    expect(card.url).toBe(`${router.url}/a2a`);
    expect(card.skills.map((s) => s.id)).toContain("echo");
    const sent = await rpc(`${router.url}/a2a`, {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: {
        message: {
          kind: "message",
          role: "user",
          messageId: crypto.randomUUID(),
          parts: [{ kind: "data", data: { tool: "echo", arguments: { city: "Tromsø" } } }],
        },
      },
    });
    const task = sent.result as {
      kind: string;
      id: string;
      status: { state: string };
      artifacts: { parts: { kind: string; text?: string }[] }[];
    };
    expect(task.kind).toBe("task");
    expect(task.status.state).toBe("completed");
    expect(JSON.parse(task.artifacts[0]?.parts[0]?.text ?? "{}").arguments).toEqual({ city: "Tromsø" });
    const got = await rpc(`${router.url}/a2a`, {
      jsonrpc: "2.0",
      id: 2,
      method: "tasks/get",
      params: { id: task.id },
    });
    expect((got.result as { status: { state: string } }).status.state).toBe("completed");
    const event = await eventually(
      async () =>
        (await history(router.url)).find(
          (e) =>
            e.toolName === "echo" &&
            e.type === "completed" &&
            e.translation?.client.method === "message/send",
        ),
      15_000,
      "the v0.3 call's event",
    );
    expect(event.translation?.client).toEqual({ protocol: "a2a", version: "0.3", method: "message/send" });
  });

  it("streams a tool's progress as WORKING status messages (an A2A agent's chunks, through the router)", async () => {
    const working: string[] = [];
    let released = false;
    let final: TaskState | undefined;
    for await (const event of a2a.sendMessageStream(
      sendMessageParams([toolCallPart("h_stream", { message: "go" })]),
    )) {
      const payload = event.payload;
      if (payload?.$case !== "statusUpdate") continue;
      const state = payload.value.status?.state;
      const said = payload.value.status?.message?.parts[0]?.content;
      if (state === TaskState.TASK_STATE_WORKING && said?.$case === "text") working.push(said.value);
      if (working.includes("chunk 1;") && !released) {
        // The agent holds the rest until released: the first chunk came while it was still working.
        expect(working).toEqual(["chunk 1;"]);
        released = true;
        await fetch(`${agentUrl}/control/release`, { method: "POST" });
      }
      if (state !== undefined && state !== TaskState.TASK_STATE_WORKING) final = state;
    }
    expect(working).toEqual(["chunk 1;", " chunk 2;", " chunk 3."]);
    expect(final).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("lists the tasks it started", async () => {
    const listed = await rpc(
      `${router.url}/a2a`,
      { jsonrpc: "2.0", id: 1, method: "ListTasks", params: { pageSize: 100 } },
      { "a2a-version": "1.0" },
    );
    const tasks = (listed.result as { tasks: { id: string; status: { state: string } }[] }).tasks;
    expect(tasks.length).toBeGreaterThan(3);
    expect(tasks.map((t) => t.status.state)).toContain("TASK_STATE_COMPLETED");
  });

  it("answers A2A errors with A2A's codes", async () => {
    const url = `${router.url}/a2a`;
    const v1 = { "a2a-version": "1.0" };
    const missing = await rpc(
      url,
      { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "no-such-task" } },
      v1,
    );
    expect(missing.error?.code).toBe(-32001);
    const push = await rpc(
      url,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "CreateTaskPushNotificationConfig",
        params: { taskId: "t", url: "https://x.example" },
      },
      v1,
    );
    expect(push.error?.code).toBe(-32003);
    const noVersion = await rpc(url, { jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "x" } });
    expect(noVersion.error?.code).toBe(-32009);
  });
});

describe("a method with no counterpart on the other protocol is refused, and reaches no backend", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter();
    await startFixtureCapability(router.url, [
      "--service-name",
      "fixture-grpc",
      "--service-type",
      "tool-invoker",
    ]);
    await api(router.url, "POST", "/api/v1/tools", {
      name: "echo",
      uri: "fixture://echo",
      type: "fixture-grpc",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    });
    await serviceHealthy(router.url, "fixture-grpc");
  }, 120_000);

  afterAll(stopAll);

  it("an MCP method sent to the A2A leg: -32601, with or without A2A-Version", async () => {
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "echo", arguments: { city: "Oslo" } },
    };
    for (const headers of [{ "a2a-version": "1.0" }, {}] as Record<string, string>[]) {
      const answer = await rpc(`${router.url}/a2a`, call, headers);
      expect(answer.error?.code).toBe(-32601);
      expect(answer.error?.message).toContain("tools/call");
    }
    expect(await history(router.url)).toEqual([]);
  });

  it("an A2A method sent to the MCP leg: -32601", async () => {
    const client = new McpClient({ name: "e2e-refusal", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`));
    await client.connect(transport);
    const answer = await rpc(
      `${router.url}/mcp`,
      {
        jsonrpc: "2.0",
        id: 8,
        method: "SendMessage",
        params: { message: { role: "ROLE_USER", parts: [{ text: "hi" }] } },
      },
      {
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId as string,
        "mcp-protocol-version": "2025-06-18",
      },
    );
    expect(answer.error?.code).toBe(-32601);
    expect(answer.error?.message).toContain("SendMessage");
    expect(await history(router.url)).toEqual([]);
    await client.close();
  });
});
