import type { InputAnswers, InputRequest, InputResponse } from "@trestle/core";
import { openStore, type Store } from "@trestle/registry";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProtocolError } from "../src/mcp/protocol-error.js";
import {
  createTaskRunner,
  type TaskCall,
  type TaskCallHooks,
  type TaskOwner,
  type TaskRunner,
  type TaskRunnerOptions,
} from "../src/mcp/tasks.js";
import type { McpTaskTable, StoredMcpTask } from "../src/state/mcp-tasks.js";
import { openServerState } from "../src/state/server-state.js";

const OWNER: TaskOwner = { namespace: "ns", principal: "alice" };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let database: Store;
/** The MCP tasks' table, in a throw-away store's database. */
let store: McpTaskTable;
const runners: TaskRunner[] = [];
/** Calls still held open by a test; released after each test so no task outlives it. */
const gates: Gate<unknown>[] = [];

beforeAll(async () => {
  database = await openStore({ memory: true });
  store = (await openServerState(database.sql)).state.mcpTasks;
});
afterEach(() => {
  for (const gate of gates.splice(0)) gate.resolve({ content: [] });
  for (const runner of runners.splice(0)) runner.close();
});
afterAll(async () => {
  await database.close();
});

/** A promise settled from outside. */
interface Gate<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function gate<T>(): Gate<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const g = { promise, resolve, reject };
  gates.push(g as Gate<unknown>);
  return g;
}

/** The table as the runner sees it, recording the ids of the tasks saved. */
function recording(base: McpTaskTable): McpTaskTable & { saved: string[] } {
  const saved: string[] = [];
  return {
    saved,
    saveMcpTask: (task: StoredMcpTask, now: number) => {
      saved.push(task.id);
      return base.saveMcpTask(task, now);
    },
    loadMcpTask: (id, now) => base.loadMcpTask(id, now),
    requestMcpTask: (id, requests) => base.requestMcpTask(id, requests),
    takeMcpTaskRequests: (id) => base.takeMcpTaskRequests(id),
    removeExpiredMcpTasks: (now) => base.removeExpiredMcpTasks(now),
    countMcpTasks: (principal, now) => base.countMcpTasks(principal, now),
  };
}

function runner(options: Partial<TaskRunnerOptions> = {}): TaskRunner {
  const r = createTaskRunner({
    store,
    watchIntervalMs: 20,
    startWindowMs: 50,
    pollIntervalMs: 500,
    ttlMs: 60_000,
    ...options,
  });
  runners.push(r);
  return r;
}

async function waitFor<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (ok(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** Polls `tasks/get` until the task has `status`. */
function untilStatus(r: TaskRunner, taskId: string, status: string, owner = OWNER) {
  return waitFor(
    () => r.get(owner, taskId),
    (t) => t.status === status,
    `task ${taskId} to be ${status}`,
  );
}

async function started(r: TaskRunner, run: TaskCall, owner = OWNER): Promise<Record<string, unknown>> {
  const outcome = await r.start(owner, run);
  if (!("task" in outcome)) throw new Error(`expected a task, got ${JSON.stringify(outcome)}`);
  return outcome.task;
}

async function protocolError(promise: Promise<unknown>): Promise<ProtocolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error("expected a ProtocolError, the promise resolved");
}

const ELICIT: InputRequest = {
  kind: "elicitation",
  params: {
    message: "Proceed?",
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
  },
};

const text = (value: string) => ({ content: [{ type: "text", text: value }] });

describe("createTaskRunner", () => {
  it("creates a task for a call ending within the start window; tasks/get then shows it completed", async () => {
    const r = runner();
    const task = await started(r, async () => text("quick"));
    expect(task.resultType).toBe("task");
    expect(typeof task.taskId).toBe("string");
    expect(["working", "completed"]).toContain(task.status);
    expect(task.createdAt).toMatch(ISO);
    expect(task.lastUpdatedAt).toMatch(ISO);
    expect(Number.isInteger(task.ttlMs)).toBe(true);
    expect(task.ttlMs).toBeGreaterThanOrEqual(60_000);
    expect(task.pollIntervalMs).toBe(500);
    expect(task).not.toHaveProperty("requestState");
    expect(task).not.toHaveProperty("task");
    expect(task).not.toHaveProperty("inputRequired");
    // The extension's names only, not the 2025-11-25 ones.
    expect(task).not.toHaveProperty("ttl");
    expect(task).not.toHaveProperty("pollInterval");

    const done = await untilStatus(r, task.taskId as string, "completed");
    expect(done.resultType).toBe("complete");
    expect(done.taskId).toBe(task.taskId);
    expect(done.result).toEqual(text("quick"));
    expect(done.createdAt).toBe(task.createdAt);
    expect(done.lastUpdatedAt).toMatch(ISO);
    expect(done).not.toHaveProperty("error");
    expect(done).not.toHaveProperty("inputRequests");
    await waitFor(
      () => r.running,
      (n) => n === 0,
      "the runner to forget the ended task",
    );
  });

  it("shows a slow call as working, then completed with its result", async () => {
    const r = runner();
    const release = gate<Record<string, unknown>>();
    const task = await started(r, () => release.promise);
    expect(task.status).toBe("working");
    const id = task.taskId as string;
    const working = await r.get(OWNER, id);
    expect(working.status).toBe("working");
    expect(working).not.toHaveProperty("result");
    expect(r.running).toBe(1);
    release.resolve({ ...text("slow"), structuredContent: { n: 1 } });
    const done = await untilStatus(r, id, "completed");
    expect(done.result).toEqual({ ...text("slow"), structuredContent: { n: 1 } });
  });

  it("keeps a tool result with isError as a completed task", async () => {
    const r = runner();
    const task = await started(r, async () => ({ ...text("bad city"), isError: true }));
    const done = await untilStatus(r, task.taskId as string, "completed");
    expect(done.result).toEqual({ ...text("bad city"), isError: true });
  });

  it("fails the task with the JSON-RPC error of a call that rejects", async () => {
    const r = runner();
    const release = gate<Record<string, unknown>>();
    const task = await started(r, () => release.promise);
    release.reject(Object.assign(new Error("upstream said no"), { code: -32042, data: { why: "quota" } }));
    const failed = await untilStatus(r, task.taskId as string, "failed");
    expect(failed.error).toEqual({ code: -32042, message: "upstream said no", data: { why: "quota" } });
    expect(failed).not.toHaveProperty("result");

    // An error without a JSON-RPC code is an internal error; one failing at once fails its task too.
    const quick = await started(r, async () => {
      throw new Error("crashed");
    });
    const quickFailed = await untilStatus(r, quick.taskId as string, "failed");
    expect(quickFailed.error).toEqual({ code: -32603, message: "crashed" });
  });

  it("returns an inputRequired answered at once as it is, and stores no task", async () => {
    const recorded = recording(store);
    const r = runner({ store: recorded });
    const inputRequired = { requests: { confirm: ELICIT }, state: "step-1" };
    const outcome = await r.start(OWNER, async () => ({ content: [], inputRequired }));
    expect(outcome).toEqual({ inputRequired });
    expect(recorded.saved).toEqual([]);
    expect(r.running).toBe(0);
  });

  it("shows a question asked while the call runs as input_required, and relays the answer", async () => {
    const r = runner();
    let answer: InputResponse | undefined;
    const task = await started(r, async (hooks) => {
      answer = await hooks.onInputRequest(ELICIT);
      return text(`answered ${answer.action}`);
    });
    const id = task.taskId as string;
    const asking = await untilStatus(r, id, "input_required");
    expect(asking.inputRequests).toEqual({
      "input-1": { method: "elicitation/create", params: ELICIT.params },
    });
    expect(asking.resultType).toBe("complete");

    await r.update(OWNER, id, { "input-1": { action: "accept", content: { ok: true } } });
    const done = await untilStatus(r, id, "completed");
    expect(answer).toEqual({ action: "accept", result: { ok: true } });
    expect(done.result).toEqual(text("answered accept"));
    expect(done).not.toHaveProperty("inputRequests");
  });

  it("keeps only the unanswered key of two questions after a partial update", async () => {
    const r = runner();
    const answers: InputResponse[] = [];
    const task = await started(r, async (hooks) => {
      const both = await Promise.all([
        hooks.onInputRequest(ELICIT),
        hooks.onInputRequest({ kind: "sampling", params: { messages: [], maxTokens: 5 } }),
      ]);
      answers.push(...both);
      return text("both answered");
    });
    const id = task.taskId as string;
    const asking = await waitFor(
      () => r.get(OWNER, id),
      (t) => Object.keys((t.inputRequests as object | undefined) ?? {}).length === 2,
      "both questions to show",
    );
    expect(asking.status).toBe("input_required");
    expect(asking.inputRequests).toEqual({
      "input-1": { method: "elicitation/create", params: ELICIT.params },
      "input-2": { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } },
    });

    await r.update(OWNER, id, { "input-1": { action: "decline" } });
    const partial = await waitFor(
      () => r.get(OWNER, id),
      (t) => !("input-1" in ((t.inputRequests as object | undefined) ?? {})),
      "the answered key to go",
    );
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests as object)).toEqual(["input-2"]);
    expect(answers).toEqual([]);

    // An answer to a key already answered, or never issued, is ignored.
    await r.update(OWNER, id, { "input-1": { action: "accept", content: { ok: true } }, bogus: {} });
    await r.update(OWNER, id, { "input-2": { role: "assistant", content: { type: "text", text: "hi" } } });
    await untilStatus(r, id, "completed");
    expect(answers).toEqual([
      { action: "decline" },
      { action: "accept", result: { role: "assistant", content: { type: "text", text: "hi" } } },
    ]);
  });

  it("asks an inputRequired given after the task started under round keys, then repeats the call", async () => {
    const r = runner();
    const first = gate<Record<string, unknown>>();
    const calls: (InputAnswers | undefined)[] = [];
    const task = await started(r, (hooks: TaskCallHooks) => {
      calls.push(hooks.input);
      if (!hooks.input) return first.promise;
      return Promise.resolve(text(`repeated with ${JSON.stringify(hooks.input)}`));
    });
    const id = task.taskId as string;
    expect(task.status).toBe("working");
    first.resolve({
      content: [],
      inputRequired: {
        requests: { confirm: ELICIT, where: { kind: "roots", params: {} } },
        state: "backend-1",
      },
    });
    const asking = await waitFor(
      () => r.get(OWNER, id),
      (t) => Object.keys((t.inputRequests as object | undefined) ?? {}).length === 2,
      "the round's questions",
    );
    expect(asking.status).toBe("input_required");
    expect(asking.inputRequests).toEqual({
      "round-1-confirm": { method: "elicitation/create", params: ELICIT.params },
      "round-1-where": { method: "roots/list", params: {} },
    });

    await r.update(OWNER, id, {
      "round-1-confirm": { action: "accept", content: { ok: true } },
      "round-1-where": { roots: [{ uri: "file:///tmp" }] },
    });
    const done = await untilStatus(r, id, "completed");
    const repeated: InputAnswers = {
      responses: {
        confirm: { action: "accept", content: { ok: true } },
        where: { roots: [{ uri: "file:///tmp" }] },
      },
      state: "backend-1",
    };
    expect(calls).toEqual([undefined, repeated]);
    expect(done.result).toEqual(text(`repeated with ${JSON.stringify(repeated)}`));
    expect(done.result).not.toHaveProperty("inputRequired");
  });

  it("cancels a task: cancelled, the call's signal aborted, and a late result does not overwrite it", async () => {
    const r = runner();
    const release = gate<Record<string, unknown>>();
    let signal: AbortSignal | undefined;
    const task = await started(r, (hooks) => {
      signal = hooks.signal;
      return release.promise;
    });
    const id = task.taskId as string;
    expect(signal?.aborted).toBe(false);
    await r.cancel(OWNER, id);
    const cancelled = await untilStatus(r, id, "cancelled");
    expect(cancelled).not.toHaveProperty("result");
    await waitFor(
      () => signal?.aborted,
      (aborted) => aborted === true,
      "the call's signal to abort",
    );
    release.resolve(text("too late"));
    await waitFor(
      () => r.running,
      (n) => n === 0,
      "the call to end",
    );
    const after = await r.get(OWNER, id);
    expect(after.status).toBe("cancelled");
    expect(after).not.toHaveProperty("result");
    expect((await store.loadMcpTask(id, Date.now()))?.status).toBe("cancelled");
  });

  it("cancels a task waiting for input", async () => {
    const r = runner();
    let failure: unknown;
    const task = await started(r, async (hooks) => {
      try {
        await hooks.onInputRequest(ELICIT);
      } catch (error) {
        failure = error;
        throw error;
      }
      return text("never");
    });
    const id = task.taskId as string;
    await untilStatus(r, id, "input_required");
    await r.cancel(OWNER, id);
    await untilStatus(r, id, "cancelled");
    await waitFor(
      () => r.running,
      (n) => n === 0,
      "the call to end",
    );
    expect(failure).toBeInstanceOf(Error);
    expect((await r.get(OWNER, id)).status).toBe("cancelled");
  });

  it("answers a task unknown, another principal's or another namespace's alike, with -32602", async () => {
    const r = runner();
    const release = gate<Record<string, unknown>>();
    const task = await started(r, () => release.promise);
    const id = task.taskId as string;
    const unknown = "7b0c0b8e-0000-4000-8000-000000000000";
    const strangers: [TaskOwner, string][] = [
      [OWNER, unknown],
      [{ namespace: "ns", principal: "mallory" }, id],
      [{ namespace: "other", principal: "alice" }, id],
    ];
    for (const [owner, taskId] of strangers) {
      const attempts = [
        r.get(owner, taskId),
        r.update(owner, taskId, { "input-1": { action: "accept" } }),
        r.cancel(owner, taskId),
      ];
      for (const attempt of attempts) {
        const error = await protocolError(attempt);
        expect(error.code).toBe(-32602);
        expect(error.message).toBe(`Invalid params: no task ${taskId}`);
        expect(error.data).toBeUndefined();
      }
    }
    // Nothing a stranger did reached the task.
    expect((await r.get(OWNER, id)).status).toBe("working");
    expect(await store.takeMcpTaskRequests(id)).toEqual({});
  });

  it.each([
    ["a number", 42],
    ["missing", undefined],
    ["an object", { id: "x" }],
    ["empty", ""],
    ["too long", "x".repeat(201)],
  ])("refuses a taskId that is %s with -32602", async (_, taskId) => {
    const r = runner();
    for (const attempt of [r.get(OWNER, taskId), r.update(OWNER, taskId, {}), r.cancel(OWNER, taskId)]) {
      const error = await protocolError(attempt);
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/taskId/);
    }
  });

  it("refuses inputResponses that are not an object of answers with -32602", async () => {
    const r = runner();
    const task = await started(r, (hooks) => hooks.onInputRequest(ELICIT).then(() => text("ok")));
    const id = task.taskId as string;
    for (const bad of [undefined, null, "yes", [1]]) {
      const error = await protocolError(r.update(OWNER, id, bad));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/inputResponses/);
    }
  });

  it("acknowledges update and cancel of a finished task without effect", async () => {
    const r = runner();
    const task = await started(r, async () => text("done"));
    const id = task.taskId as string;
    const done = await untilStatus(r, id, "completed");
    await expect(r.update(OWNER, id, { "input-1": { action: "accept" } })).resolves.toBeUndefined();
    await expect(r.cancel(OWNER, id)).resolves.toBeUndefined();
    expect(await store.takeMcpTaskRequests(id)).toEqual({});
    expect(await r.get(OWNER, id)).toEqual(done);

    const failing = await started(r, async () => {
      throw new Error("no");
    });
    const failed = await untilStatus(r, failing.taskId as string, "failed");
    await r.cancel(OWNER, failing.taskId);
    expect(await r.get(OWNER, failing.taskId)).toEqual(failed);
  });

  it("refuses a task beyond maxRunning, and takes one again once a task ended", async () => {
    const r = runner({ maxRunning: 1 });
    const release = gate<Record<string, unknown>>();
    const first = await started(r, () => release.promise);
    const error = await protocolError(r.start(OWNER, async () => text("second")));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/at most 1/);
    release.resolve(text("first"));
    await untilStatus(r, first.taskId as string, "completed");
    await waitFor(
      () => r.running,
      (n) => n === 0,
      "the first task to end",
    );
    const third = await started(r, async () => text("third"));
    expect((await untilStatus(r, third.taskId as string, "completed")).result).toEqual(text("third"));
  });

  it("forgets a task after its ttl", async () => {
    let now = Date.now();
    const r = runner({ clock: () => now, ttlMs: 5_000 });
    const task = await started(r, async () => text("short-lived"));
    const id = task.taskId as string;
    await untilStatus(r, id, "completed");
    await waitFor(
      () => r.running,
      (n) => n === 0,
      "the task to end",
    );
    expect((await r.get(OWNER, id)).status).toBe("completed");
    now += 5_001;
    const error = await protocolError(r.get(OWNER, id));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(`Invalid params: no task ${id}`);
  });

  describe("across replicas sharing the store", () => {
    it("answers tasks/get on another replica and relays its update to the running one", async () => {
      const a = runner();
      const b = runner();
      let answer: InputResponse | undefined;
      const task = await started(a, async (hooks) => {
        answer = await hooks.onInputRequest(ELICIT);
        return text("answered via b");
      });
      const id = task.taskId as string;
      // Right after creation, the other replica finds it (created durably before it was returned).
      expect(["working", "input_required"]).toContain((await b.get(OWNER, id)).status);
      const asking = await untilStatus(b, id, "input_required");
      expect(Object.keys(asking.inputRequests as object)).toEqual(["input-1"]);
      expect(b.running).toBe(0);

      await b.update(OWNER, id, { "input-1": { action: "accept", content: { ok: false } } });
      const done = await untilStatus(b, id, "completed");
      expect(answer).toEqual({ action: "accept", result: { ok: false } });
      expect(done.result).toEqual(text("answered via b"));
    });

    it("relays a cancellation from another replica to the running one", async () => {
      const a = runner();
      const b = runner();
      const release = gate<Record<string, unknown>>();
      let signal: AbortSignal | undefined;
      const task = await started(a, (hooks) => {
        signal = hooks.signal;
        return release.promise;
      });
      const id = task.taskId as string;
      await b.cancel(OWNER, id);
      await untilStatus(b, id, "cancelled");
      expect(signal?.aborted).toBe(true);
      expect((await a.get(OWNER, id)).status).toBe("cancelled");
      // The other replica hides the task from strangers too.
      const error = await protocolError(b.get({ namespace: "ns", principal: "mallory" }, id));
      expect(error.message).toBe(`Invalid params: no task ${id}`);
    });
  });

  it("cancels its running tasks when closed", async () => {
    const r = runner();
    const release = gate<Record<string, unknown>>();
    let signal: AbortSignal | undefined;
    await started(r, (hooks) => {
      signal = hooks.signal;
      return release.promise;
    });
    r.close();
    expect(signal?.aborted).toBe(true);
  });
});
