import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest } from "../support/mcp-wire.js";
import {
  api,
  eventually,
  type RouterProcess,
  type RunningProcess,
  repoRoot,
  startNode,
  startRouter,
  stopAll,
} from "../support/processes.js";

/** The A2A transport's fixture agent: a real @a2a-js/sdk agent with one skill per behaviour. */
const FIXTURE_AGENT = join(repoRoot, "packages", "transport-a2a", "test", "fixtures", "fixture-agent.mjs");

interface Translation {
  client: { protocol: string; method: string };
  backend: { protocol: string; version?: string; method: string };
  notes: { action: string; what: string; detail: string }[];
}
interface CallEvent {
  type: string;
  toolName: string;
  eventId: string;
  translation?: Translation;
}

async function startAgent(
  version: "1.0" | "0.3",
  extra: string[] = [],
): Promise<RunningProcess & { url: string }> {
  const proc = startNode(FIXTURE_AGENT, ["--a2a-version", version, ...extra]);
  const line = await proc.waitForLine((l) => l.includes('"ready"'), 30_000);
  return Object.assign(proc, { url: (JSON.parse(line) as { url: string }).url });
}

function texts(result: unknown): string {
  return ((result as { content: { type: string; text?: string }[] }).content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text as string)
    .join("\n");
}

async function agentLog(url: string): Promise<Record<string, unknown>[]> {
  return (await (await fetch(`${url}/control/log`)).json()) as Record<string, unknown>[];
}

let router: RouterProcess;
let mcp: Client;
const agents: Record<string, RunningProcess & { url: string }> = {};

beforeAll(async () => {
  router = await startRouter();
  agents["1.0"] = await startAgent("1.0");
  agents["0.3"] = await startAgent("0.3");
  for (const [version, prefix] of [
    ["1.0", "v1_"],
    ["0.3", "v03_"],
  ] as const) {
    const view = await api<{ status: { state: string; imported: { tools: number } } }>(
      router.url,
      "POST",
      "/api/v1/forwards",
      { name: `agent${prefix.replace(/_$/, "")}`, prefix, a2a: { url: agents[version]?.url } },
    );
    expect(view.status.state).toBe("ready");
    expect(view.status.imported.tools).toBe(8);
  }
  mcp = new Client({ name: "e2e-a2a", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await stopAll();
});

/** The terminal event of the latest call of `toolName`, once it is recorded. */
function terminalEvent(toolName: string, after: Set<string>): Promise<CallEvent> {
  return eventually(
    async () => {
      const events = await api<CallEvent[]>(
        router.url,
        "GET",
        `/api/v2/tool-calls/history?toolName=${encodeURIComponent(toolName)}&limit=50`,
      );
      return events.find((e) => e.type !== "started" && !after.has(e.eventId));
    },
    20_000,
    `a terminal event of ${toolName}`,
  );
}

async function seenEvents(toolName: string): Promise<Set<string>> {
  const events = await api<CallEvent[]>(
    router.url,
    "GET",
    `/api/v2/tool-calls/history?toolName=${encodeURIComponent(toolName)}&limit=100`,
  );
  return new Set(events.map((e) => e.eventId));
}

for (const [version, prefix, stream] of [
  ["1.0", "v1_", "SendStreamingMessage"],
  ["0.3", "v03_", "message/stream"],
] as const) {
  describe(`an @a2a-js/sdk agent speaking A2A ${version}, behind the router, called from an MCP client`, () => {
    const agentUrl = () => agents[version]?.url as string;

    it("lists the agent's skills as tools", async () => {
      const { tools } = await mcp.listTools();
      const echo = tools.find((t) => t.name === `${prefix}echo`);
      expect(echo?.title).toBe("Echo");
      expect(echo?.inputSchema.properties).toHaveProperty("task");
    });

    it("answers a plain call, with the translation report on its event", async () => {
      const before = await seenEvents(`${prefix}echo`);
      const result = await mcp.callTool({ name: `${prefix}echo`, arguments: { message: "hello" } });
      expect(result.isError).toBeFalsy();
      expect(texts(result)).toBe("echo: hello");
      const rpc = (await agentLog(agentUrl())).filter((e) => e.event === "rpc").at(-1);
      expect(rpc).toEqual({ event: "rpc", method: stream, version });
      const event = await terminalEvent(`${prefix}echo`, before);
      expect(event.type).toBe("completed");
      expect(event.translation?.client).toEqual({
        protocol: "mcp",
        version: "2025-11-25",
        method: "tools/call",
      });
      expect(event.translation?.backend).toEqual({ protocol: "a2a", version, method: stream });
      expect(event.translation?.notes.map((n) => n.what)).toContain("skill input schema");
    });

    it("streams: the first chunk reaches the client before the agent finishes", async () => {
      const before = await seenEvents(`${prefix}stream`);
      const chunks: string[] = [];
      const pending = mcp.callTool(
        { name: `${prefix}stream`, arguments: { message: "go" } },
        CallToolResultSchema,
        {
          onprogress: (p) => chunks.push(p.message ?? ""),
          timeout: 60_000,
        },
      );
      await eventually(() => (chunks.includes("chunk 1;") ? true : undefined), 20_000, "the first chunk");
      // The agent holds the rest until released: the chunk above came while it was still working.
      expect(chunks).toEqual(["chunk 1;"]);
      await fetch(`${agentUrl()}/control/release`, { method: "POST" });
      const result = await pending;
      expect(texts(result)).toBe("chunk 1; chunk 2; chunk 3.");
      const event = await terminalEvent(`${prefix}stream`, before);
      expect(event.translation?.backend.method).toBe(stream);
    });

    it("keeps the task across two turns, through an input-required turn", async () => {
      const before = await seenEvents(`${prefix}converse`);
      const first = await mcp.callTool({ name: `${prefix}converse`, arguments: { message: "hi" } });
      expect(first.isError).toBeFalsy();
      expect(texts(first)).toContain("What is your name?");
      const structured = first.structuredContent as { state: string; task: string };
      expect(structured.state).toBe("input-required");
      // This client declared no elicitation: it gets the agent's question as the answer and continues the task
      // with its handle; nothing the revision does not define reaches it.
      expect(first).not.toHaveProperty("inputRequired");
      const firstEvent = await terminalEvent(`${prefix}converse`, before);
      expect(firstEvent.translation?.notes.map((n) => n.what)).toContain("TASK_STATE_INPUT_REQUIRED");

      const taskId = (
        (first._meta as Record<string, { taskId: string }>)["trestle.dev/a2a"] as { taskId: string }
      ).taskId;
      before.add(firstEvent.eventId);
      const second = await mcp.callTool({
        name: `${prefix}converse`,
        arguments: { message: "Ada", task: structured.task },
      });
      expect(texts(second)).toBe(`Hello, Ada! (task ${taskId})`);
      expect((second.structuredContent as { state: string }).state).toBe("completed");
      const secondEvent = await terminalEvent(`${prefix}converse`, before);
      expect(secondEvent.translation?.notes.map((n) => n.what)).toContain("task handle");
    });

    it("cancels: the MCP client's cancellation reaches the agent as CancelTask", async () => {
      const before = await seenEvents(`${prefix}slow`);
      const controller = new AbortController();
      const chunks: string[] = [];
      const pending = mcp.callTool(
        { name: `${prefix}slow`, arguments: { message: "take your time" } },
        CallToolResultSchema,
        {
          signal: controller.signal,
          onprogress: (p) => chunks.push(p.message ?? ""),
          timeout: 60_000,
        },
      );
      await eventually(
        () => (chunks.includes("working on it") ? true : undefined),
        20_000,
        "the agent working",
      );
      controller.abort();
      await expect(pending).rejects.toThrow();
      await eventually(
        async () => ((await agentLog(agentUrl())).some((e) => e.event === "cancel") ? true : undefined),
        20_000,
        "the agent's CancelTask",
      );
      const event = await terminalEvent(`${prefix}slow`, before);
      expect(event.type).toBe("failed");
      expect(event.translation?.notes.map((n) => n.what)).toContain("cancellation");
    });

    it("turns a failed task into an error result that says so", async () => {
      const result = await mcp.callTool({ name: `${prefix}fail`, arguments: { message: "x" } });
      expect(result.isError).toBe(true);
      expect(texts(result)).toBe("The A2A agent failed the task: something broke in the agent");
    });
  });
}

describe("an agent whose card requires a bearer token", () => {
  const TOKEN = "agent-token-canary-91f3";

  it("is not added without it, is with it, and the token shows nowhere", async () => {
    const agent = await startAgent("1.0", ["--token", TOKEN]);
    const refused = await fetch(`${router.url}/api/v1/forwards`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "guarded", a2a: { url: agent.url } }),
    });
    expect(refused.ok).toBe(false);
    expect(await refused.text()).toContain("'bearer' (header authorization)");

    const added = await fetch(`${router.url}/api/v1/forwards`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "guarded",
        prefix: "g_",
        a2a: { url: agent.url, headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    });
    const view = await added.text();
    expect(added.status).toBe(201);
    expect(view).toContain('"headers":["authorization"]');
    expect(view).not.toContain(TOKEN);

    const result = await mcp.callTool({ name: "g_echo", arguments: { message: "with a token" } });
    expect(texts(result)).toBe("echo: with a token");
    const listed = await (await fetch(`${router.url}/api/v1/forwards`)).text();
    const events = await (await fetch(`${router.url}/api/v2/tool-calls/history?limit=200`)).text();
    for (const text of [listed, events, router.lines.join("\n")]) expect(text).not.toContain(TOKEN);
  });
});

describe("an A2A agent's call as an MCP task, for a 2026-07-28 client that declares the tasks extension", () => {
  it("answers with a task, and tasks/get shows the agent's reply once done", async () => {
    const tasks = { extensions: { "io.modelcontextprotocol/tasks": {} } };
    const created = await modernRequest(
      `${router.url}/mcp`,
      "tools/call",
      { name: "v1_echo", arguments: { message: "as a task" } },
      { capabilities: tasks },
    );
    expect(created.body.result?.resultType).toBe("task");
    const taskId = created.body.result?.taskId as string;
    const done = await eventually(
      async () => {
        const got = await modernRequest(
          `${router.url}/mcp`,
          "tasks/get",
          { taskId },
          { capabilities: tasks },
        );
        return got.body.result?.status === "completed" ? got.body.result : undefined;
      },
      20_000,
      "the task completed",
    );
    expect(JSON.stringify(done.result)).toContain("echo: as a task");
    // Without the extension the same call answers at once.
    const plain = await modernRequest(`${router.url}/mcp`, "tools/call", {
      name: "v1_echo",
      arguments: { message: "plain" },
    });
    expect(plain.body.result?.resultType).toBe("complete");
  });
});
