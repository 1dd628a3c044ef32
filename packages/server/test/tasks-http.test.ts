import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createCodeExecutionBridge,
  createEventHub,
  createInvokerBridge,
  createResourceBridge,
} from "@trestle/bridge";
import type { ServiceHandlers, ToolCall, ToolResult } from "@trestle/core";
import { createInMemoryNetwork, createInMemoryTransport } from "@trestle/core/in-memory";
import { createTransportSelector } from "@trestle/core/routing";
import { openStore, type Store } from "@trestle/registry";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCallService } from "../src/calls/call-service.js";
import { ANONYMOUS_PRINCIPAL, callerPrincipal } from "../src/calls/caller.js";
import type { EngineLanguage } from "../src/calls/catalog-view.js";
import { createMcpEndpoint } from "../src/mcp/mcp-endpoint.js";
import { MCP_REVISIONS, META } from "../src/mcp/protocol-era.js";
import { createTaskRunner, TASKS_EXTENSION, type TaskRunner } from "../src/mcp/tasks.js";
import type { McpTaskTable } from "../src/state/mcp-tasks.js";
import { openServerState } from "../src/state/server-state.js";
import { FixtureCatalog } from "./mcp-fixture.js";

const MODERN = "2026-07-28";
const DECLARES = { extensions: { [TASKS_EXTENSION]: {} } };

let database: Store;
/** The MCP tasks' table, in a throw-away store's database. */
let store: McpTaskTable;
beforeAll(async () => {
  database = await openStore({ memory: true });
  store = (await openServerState(database.sql)).state.mcpTasks;
});
afterAll(async () => {
  await database.close();
});

/** Calls to `slow://` wait here until the test lets them go, in order. */
const waiting: ((result: ToolResult) => void)[] = [];
const calls: ToolCall[] = [];

const handlers: ServiceHandlers = {
  callTool: async (call) => {
    calls.push(call);
    if (call.tool.uri === "slow://") {
      return new Promise<ToolResult>((resolve) => waiting.push(resolve));
    }
    if (call.tool.uri === "slow-ask://") {
      if (call.input) return { content: [{ type: "text", text: `answered ${JSON.stringify(call.input)}` }] };
      return new Promise<ToolResult>((resolve) => waiting.push(resolve));
    }
    if (call.tool.uri === "ask://" && call.input) {
      return { content: [{ type: "text", text: `answered ${JSON.stringify(call.input)}` }] };
    }
    if (call.tool.uri === "ask://") {
      return {
        content: [],
        inputRequired: {
          requests: { confirm: { kind: "elicitation", params: { message: "Sure?", requestedSchema: {} } } },
          state: "ask-1",
        },
      };
    }
    return { content: [{ type: "text", text: `echo ${JSON.stringify(call.arguments)}` }] };
  },
  async *executeCode() {
    yield { type: "output", stream: "stdout", text: "ran\n" };
    yield { type: "exit", status: "completed", exitCode: 0 };
  },
};

function catalog(): FixtureCatalog {
  const c = new FixtureCatalog();
  c.namespaces.add("other");
  const object = { type: "object" as const };
  c.tools.push(
    { name: "plain", uri: "echo://", type: "fixture", inputSchema: object },
    { name: "maybe", uri: "echo://", type: "fixture", inputSchema: object, taskSupport: "optional" },
    { name: "always", uri: "echo://", type: "fixture", inputSchema: object, taskSupport: "required" },
    { name: "slow", uri: "slow://", type: "fixture", inputSchema: object, taskSupport: "optional" },
    { name: "slow_ask", uri: "slow-ask://", type: "fixture", inputSchema: object, taskSupport: "optional" },
    { name: "ask", uri: "ask://", type: "fixture", inputSchema: object, taskSupport: "optional" },
    { name: "forbidden", uri: "slow://", type: "fixture", inputSchema: object, taskSupport: "forbidden" },
  );
  return c;
}

interface Endpoint {
  url: string;
  engines: EngineLanguage[];
  tasks: TaskRunner;
  close(): Promise<void>;
}

/** An MCP endpoint as `mcp-fixture.ts` builds one, with a task runner over the in-memory store. */
async function startEndpoint(): Promise<Endpoint> {
  const network = createInMemoryNetwork();
  const served = network.serve(handlers, { serviceName: "fixture" });
  const resolver = { resolve: async () => served.target, resolveCodeExecution: async () => served.target };
  const transports = createTransportSelector({ byProtocol: { grpc: createInMemoryTransport({ network }) } });
  const deps = { resolver, transports, events: createEventHub() };
  const engines: EngineLanguage[] = [];
  const tasks = createTaskRunner({ store, watchIntervalMs: 20, startWindowMs: 50, pollIntervalMs: 100 });
  const endpoint = createMcpEndpoint(
    {
      calls: createCallService({
        catalog: catalog(),
        invoker: createInvokerBridge(deps),
        resources: createResourceBridge(deps),
        codeExecution: createCodeExecutionBridge(deps),
        engines: () => engines,
        codeExecutionToolName: "execute_code",
        maxConcurrentRunsPerPrincipal: 4,
      }),
      canServeResources: () => false,
      tasks,
    },
    {
      stateless: false,
      maxBodyBytes: 1024 * 1024,
      maxListenStreamsPerPrincipal: 16,
      listenMaxAgeMs: 60 * 60_000,
      settings: {
        serverInfo: { name: "trestle", version: "0.0.0-test" },
        pageSize: 50,
        forwardHeaders: [],
        acceptedRevisions: MCP_REVISIONS,
        caching: { listTtlMs: 60_000, cacheScope: "public" },
      },
      sessions: { idleTimeoutMs: 60_000, maxSessions: 100 },
    },
  );
  const http: HttpServer = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const principal = req.headers["x-test-principal"];
    void endpoint.handle(
      req,
      res,
      path === "/mcp" ? "" : (path.split("/")[1] ?? ""),
      typeof principal === "string" ? callerPrincipal({ id: principal }) : ANONYMOUS_PRINCIPAL,
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    engines,
    tasks,
    async close() {
      tasks.close();
      await endpoint.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await transports.close();
      await served.close();
    },
  };
}

let server: Endpoint;
beforeAll(async () => {
  server = await startEndpoint();
});
afterEach(() => {
  for (const release of waiting.splice(0)) release({ content: [] });
  calls.splice(0);
});
afterAll(async () => {
  await server.close();
});

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function post(message: unknown, headers: Record<string, string>, path = "/mcp"): Promise<Reply> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").startsWith("application/json")) {
    throw new Error(`expected JSON, got ${response.status} ${response.headers.get("content-type")}: ${text}`);
  }
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

/** A stateless request with matching headers; `name` is the Mcp-Name header (omitted when undefined). */
function modern(
  method: string,
  params: Record<string, unknown>,
  options: {
    name?: string;
    capabilities?: Record<string, unknown>;
    path?: string;
    id?: number | string;
  } = {},
): Promise<Reply> {
  return post(
    {
      jsonrpc: "2.0",
      id: options.id ?? 1,
      method,
      params: {
        ...params,
        _meta: {
          [META.protocolVersion]: MODERN,
          [META.clientCapabilities]: options.capabilities ?? DECLARES,
          [META.clientInfo]: { name: "tasks-test", version: "1.0.0" },
        },
      },
    },
    {
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(options.name !== undefined ? { "mcp-name": options.name } : {}),
    },
    options.path,
  );
}

function resultOf(reply: Reply): Record<string, unknown> {
  if (!("result" in reply.body)) throw new Error(`expected a result, got ${JSON.stringify(reply.body)}`);
  return reply.body.result as Record<string, unknown>;
}

function errorOf(reply: Reply): { code: number; message: string; data?: unknown } {
  if (!("error" in reply.body)) throw new Error(`expected an error, got ${JSON.stringify(reply.body)}`);
  return reply.body.error as { code: number; message: string; data?: unknown };
}

/** An acknowledgement's fields besides `_meta` (the spec's empty result, with its resultType). */
function ackFields(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _, ...fields } = result;
  return fields;
}

const callTool = (name: string, options: { capabilities?: Record<string, unknown> } = {}) =>
  modern("tools/call", { name, arguments: { n: 1 } }, { name, ...options });

const taskMethod = (method: string, taskId: string, extra: Record<string, unknown> = {}, path?: string) =>
  modern(method, { taskId, ...extra }, { name: taskId, ...(path ? { path } : {}) });

async function waitFor<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls tasks/get until the task has `status`. */
function untilStatus(taskId: string, status: string): Promise<Record<string, unknown>> {
  return waitFor(
    async () => resultOf(await taskMethod("tasks/get", taskId)),
    (task) => task.status === status,
    `task ${taskId} to be ${status}`,
  );
}

async function createdTask(name: string, capabilities?: Record<string, unknown>): Promise<string> {
  const reply = await callTool(name, capabilities ? { capabilities } : {});
  expect(reply.status).toBe(200);
  const result = resultOf(reply);
  expect(result.resultType).toBe("task");
  expect(typeof result.taskId).toBe("string");
  return result.taskId as string;
}

describe("the MCP tasks extension over HTTP", () => {
  it("advertises the extension in server/discover", async () => {
    const reply = await modern("server/discover", {});
    expect(reply.status).toBe(200);
    const capabilities = resultOf(reply).capabilities as Record<string, unknown>;
    expect(capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
  });

  it("runs an optional tool as a task for a declaring client, and plainly for one that does not declare", async () => {
    const reply = await callTool("maybe");
    expect(reply.status).toBe(200);
    const task = resultOf(reply);
    expect(task).toMatchObject({ resultType: "task", pollIntervalMs: 100 });
    // ttlMs counts from creation and grows while the task runs, so it stays readable after its last change.
    expect(task.ttlMs).toBeGreaterThanOrEqual(3_600_000);
    expect(Number.isInteger(task.ttlMs)).toBe(true);
    expect(["working", "completed"]).toContain(task.status);
    expect(task).not.toHaveProperty("content");
    expect(task).not.toHaveProperty("task");
    const done = await untilStatus(task.taskId as string, "completed");
    expect(done.resultType).toBe("complete");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: 'echo {"n":1}' }] });

    const plain = resultOf(await callTool("maybe", { capabilities: {} }));
    expect(plain.resultType).toBe("complete");
    expect(plain.content).toEqual([{ type: "text", text: 'echo {"n":1}' }]);
    expect(plain).not.toHaveProperty("taskId");

    // Another extension declared is not this one.
    const others = resultOf(
      await callTool("maybe", { capabilities: { extensions: { "example.com/x": {} } } }),
    );
    expect(others.resultType).toBe("complete");
  });

  it("refuses a required tool to a client without the extension with 400 / -32021 naming it", async () => {
    const reply = await modern(
      "tools/call",
      { name: "always" },
      { name: "always", capabilities: {}, id: "r-1" },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.id).toBe("r-1");
    const error = errorOf(reply);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    expect(calls).toEqual([]);

    const taskId = await createdTask("always");
    expect((await untilStatus(taskId, "completed")).result).toMatchObject({
      content: [{ type: "text", text: 'echo {"n":1}' }],
    });
  });

  it("never runs a forbidden tool, or one without taskSupport, as a task", async () => {
    expect(resultOf(await callTool("plain")).resultType).toBe("complete");
    const pending = callTool("forbidden");
    await waitFor(
      () => waiting.length,
      (n) => n === 1,
      "the forbidden tool's call to arrive",
    );
    // Held past the start window, it still answers with the call's own result.
    await new Promise((resolve) => setTimeout(resolve, 150));
    waiting.shift()?.({ content: [{ type: "text", text: "held" }] });
    const result = resultOf(await pending);
    expect(result.resultType).toBe("complete");
    expect(result.content).toEqual([{ type: "text", text: "held" }]);
    expect(server.tasks.running).toBe(0);
  });

  it("serves tasks/get and tasks/cancel with Mcp-Name = taskId", async () => {
    const taskId = await createdTask("slow");
    const working = await taskMethod("tasks/get", taskId);
    expect(working.status).toBe(200);
    expect(resultOf(working)).toMatchObject({ taskId, status: "working", resultType: "complete" });

    const cancelled = await taskMethod("tasks/cancel", taskId);
    expect(cancelled.status).toBe(200);
    expect(ackFields(resultOf(cancelled))).toEqual({ resultType: "complete" });
    const task = await untilStatus(taskId, "cancelled");
    expect(task).not.toHaveProperty("result");
    waiting.shift()?.({ content: [{ type: "text", text: "late" }] });
    await waitFor(
      () => server.tasks.running,
      (n) => n === 0,
      "the cancelled call to end",
    );
    expect(resultOf(await taskMethod("tasks/get", taskId)).status).toBe("cancelled");
  });

  it("fails a task whose backend asks what the client did not declare it can answer, with -32021", async () => {
    const taskId = await createdTask("slow_ask");
    await waitFor(
      () => waiting.length,
      (n) => n === 1,
      "the call to arrive",
    );
    waiting.shift()?.({
      content: [],
      inputRequired: {
        requests: { confirm: { kind: "elicitation", params: { message: "Go?", requestedSchema: {} } } },
      },
    });
    const failed = await untilStatus(taskId, "failed");
    expect(failed.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
  });

  it("shows a backend's question on the task and takes the answer with tasks/update", async () => {
    const taskId = await createdTask("slow_ask", { ...DECLARES, elicitation: {} });
    await waitFor(
      () => waiting.length,
      (n) => n === 1,
      "the call to arrive",
    );
    waiting.shift()?.({
      content: [],
      inputRequired: {
        requests: { confirm: { kind: "elicitation", params: { message: "Go?", requestedSchema: {} } } },
        state: "b-1",
      },
    });
    const asking = await untilStatus(taskId, "input_required");
    expect(asking).not.toHaveProperty("requestState");
    expect(asking.inputRequests).toEqual({
      "round-1-confirm": { method: "elicitation/create", params: { message: "Go?", requestedSchema: {} } },
    });
    const updated = await taskMethod("tasks/update", taskId, {
      inputResponses: { "round-1-confirm": { action: "accept", content: { go: true } } },
    });
    expect(updated.status).toBe(200);
    expect(ackFields(resultOf(updated))).toEqual({ resultType: "complete" });
    const done = await untilStatus(taskId, "completed");
    expect(done.result).toMatchObject({
      content: [
        {
          type: "text",
          text: `answered ${JSON.stringify({ responses: { confirm: { action: "accept", content: { go: true } } }, state: "b-1" })}`,
        },
      ],
    });
  });

  it("answers a backend asking at once with input_required, not a task; the repeated request becomes one", async () => {
    const reply = await callTool("ask", { capabilities: { ...DECLARES, elicitation: {} } });
    const result = resultOf(reply);
    expect(result.resultType).toBe("input_required");
    expect(Object.keys(result.inputRequests as object)).toEqual(["confirm"]);
    expect(typeof result.requestState).toBe("string");
    expect(server.tasks.running).toBe(0);

    // The state answers only the request it was issued for: the same tool with other arguments is refused.
    const inputResponses = { confirm: { action: "accept", content: { ok: true } } };
    const other = await modern(
      "tools/call",
      { name: "ask", arguments: { n: 2 }, inputResponses, requestState: result.requestState },
      { name: "ask", capabilities: { ...DECLARES, elicitation: {} } },
    );
    expect((other.body as { error?: { code: number } }).error?.code).toBe(-32602);
    // The repeated request with the answers and the state runs as a task.
    const repeated = resultOf(
      await modern(
        "tools/call",
        { name: "ask", arguments: { n: 1 }, inputResponses, requestState: result.requestState },
        { name: "ask", capabilities: { ...DECLARES, elicitation: {} } },
      ),
    );
    expect(repeated.resultType).toBe("task");
    expect(repeated).not.toHaveProperty("requestState");
    expect(repeated).not.toHaveProperty("inputRequests");
    const done = await untilStatus(repeated.taskId as string, "completed");
    expect(done.result).toMatchObject({
      content: [
        { type: "text", text: `answered ${JSON.stringify({ responses: inputResponses, state: "ask-1" })}` },
      ],
    });
  });

  it("runs the code execution tool as a task for a declaring client", async () => {
    server.engines.push({ engineType: "fixture", language: "python" });
    try {
      const reply = await modern(
        "tools/call",
        { name: "execute_code", arguments: { language: "python", code: "print(1)" } },
        { name: "execute_code" },
      );
      const task = resultOf(reply);
      expect(task.resultType).toBe("task");
      const done = await untilStatus(task.taskId as string, "completed");
      expect(done.result).toMatchObject({ structuredContent: { stdout: "ran\n", exitCode: 0 } });
    } finally {
      server.engines.splice(0);
    }
  });

  it.each(["tasks/get", "tasks/update", "tasks/cancel"])(
    "refuses %s whose Mcp-Name differs from the taskId with 400 / -32020",
    async (method) => {
      const taskId = await createdTask("maybe");
      const reply = await modern(
        method,
        { taskId, inputResponses: {} },
        { name: "someone-else", id: `m-${method}` },
      );
      expect(reply.status).toBe(400);
      expect(reply.body.id).toBe(`m-${method}`);
      expect(errorOf(reply).code).toBe(-32020);
      const missing = await modern(method, { taskId, inputResponses: {} });
      expect(missing.status).toBe(400);
      expect(errorOf(missing).code).toBe(-32020);
    },
  );

  it("answers a task of another namespace, or an unknown one, with -32602 alike", async () => {
    const taskId = await createdTask("maybe");
    await untilStatus(taskId, "completed");
    const elsewhere = await taskMethod("tasks/get", taskId, {}, "/other/mcp");
    expect(errorOf(elsewhere)).toMatchObject({ code: -32602, message: `Invalid params: no task ${taskId}` });
    const unknown = "11111111-2222-4333-8444-555555555555";
    const missing = await taskMethod("tasks/get", unknown);
    expect(errorOf(missing)).toMatchObject({ code: -32602, message: `Invalid params: no task ${unknown}` });
    const cancel = await taskMethod("tasks/cancel", taskId, {}, "/other/mcp");
    expect(errorOf(cancel).code).toBe(-32602);
  });

  it.each(["tasks/list", "tasks/result"])("answers the removed %s with 404 / -32601", async (method) => {
    const taskId = await createdTask("maybe");
    const reply = await modern(method, { taskId }, { name: taskId, id: `gone-${method}` });
    expect(reply.status).toBe(404);
    expect(reply.body.id).toBe(`gone-${method}`);
    expect(errorOf(reply).code).toBe(-32601);
  });

  it("answers tasks/get in a legacy session with -32601", async () => {
    const taskId = await createdTask("maybe");
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "legacy", version: "1" },
        },
      }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const session = response.headers.get("mcp-session-id");
    expect(session).toBeTruthy();
    const reply = await post(
      { jsonrpc: "2.0", id: "legacy-get", method: "tasks/get", params: { taskId } },
      { "mcp-session-id": session as string, "mcp-protocol-version": "2025-11-25" },
    );
    expect(reply.body.id).toBe("legacy-get");
    expect(errorOf(reply).code).toBe(-32601);
  });
});
