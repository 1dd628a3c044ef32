import { openStore, type Store, type StoreSqlClient } from "@trestle/registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEndedMcpSessionTable } from "../../src/state/ended-mcp-sessions.js";
import { openServerState, type ServerState } from "../../src/state/server-state.js";

// One throw-away store for the file; each table's tests use ids of their own.
let store: Store;
let state: ServerState;
beforeAll(async () => {
  store = await openStore({ memory: true });
  ({ state } = await openServerState(store.sql));
});
afterAll(() => store.close());

describe("the A2A tasks' table", () => {
  const task = (state: string, principal = "alice") => ({
    id: "t1",
    namespace: "team",
    principal,
    contextId: "c1",
    state,
    document: { id: "t1", contextId: "c1", status: { state } },
  });

  it("saves, replaces, loads, lists by namespace, principal and context, and removes old ones", async () => {
    expect(await state.a2aTasks.saveA2aTask(task("TASK_STATE_WORKING"), 1_000)).toBe(true);
    expect(await state.a2aTasks.saveA2aTask(task("TASK_STATE_COMPLETED"), 2_000)).toBe(true);
    await state.a2aTasks.saveA2aTask({ ...task("TASK_STATE_WORKING"), id: "t2", contextId: "c2" }, 3_000);
    await state.a2aTasks.saveA2aTask({ ...task("TASK_STATE_WORKING", "bob"), id: "t3" }, 3_500);
    expect(await state.a2aTasks.loadA2aTask("t1")).toEqual({
      ...task("TASK_STATE_COMPLETED"),
      updatedAt: 2_000,
    });
    expect(await state.a2aTasks.loadA2aTask("nope")).toBeUndefined();
    expect((await state.a2aTasks.listA2aTasks("team", "alice", { limit: 10 })).map((t) => t.id)).toEqual([
      "t2",
      "t1",
    ]);
    expect((await state.a2aTasks.listA2aTasks("team", "bob", { limit: 10 })).map((t) => t.id)).toEqual([
      "t3",
    ]);
    expect(
      (await state.a2aTasks.listA2aTasks("team", "alice", { contextId: "c1", limit: 10 })).map((t) => t.id),
    ).toEqual(["t1"]);
    expect(await state.a2aTasks.listA2aTasks("", "alice", { limit: 10 })).toEqual([]);
    expect(await state.a2aTasks.countA2aTasks("alice")).toBe(2);
    expect(await state.a2aTasks.countA2aTasks("bob")).toBe(1);
    expect(await state.a2aTasks.removeA2aTasks(2_500)).toBe(1);
    expect(await state.a2aTasks.loadA2aTask("t1")).toBeUndefined();
    expect(await state.a2aTasks.countA2aTasks("alice")).toBe(1);
    expect(await state.a2aTasks.countA2aTasks("bob")).toBe(1);
  });

  it("never lets another principal's save replace a task", async () => {
    expect(await state.a2aTasks.saveA2aTask({ ...task("TASK_STATE_WORKING"), id: "owned" }, 10_000)).toBe(
      true,
    );
    const stolen = { ...task("TASK_STATE_CANCELED", "mallory"), id: "owned", document: { stolen: true } };
    expect(await state.a2aTasks.saveA2aTask(stolen, 11_000)).toBe(false);
    expect(await state.a2aTasks.loadA2aTask("owned")).toMatchObject({
      principal: "alice",
      state: "TASK_STATE_WORKING",
    });
  });
});

describe("the A2A tasks' table, its cancellations and its counts", () => {
  const stored = (id: string, state: string, principal = "carol") => ({
    id,
    namespace: "team",
    principal,
    contextId: "c1",
    state,
    document: { id, contextId: "c1", status: { state } },
  });

  it("keeps a cancellation: a later update of the running call leaves it as it is", async () => {
    await state.a2aTasks.saveA2aTask(stored("k1", "TASK_STATE_WORKING"), 1_000);
    expect(await state.a2aTasks.saveA2aTask(stored("k1", "TASK_STATE_CANCELED"), 2_000)).toBe(true);
    expect(await state.a2aTasks.saveA2aTask(stored("k1", "TASK_STATE_COMPLETED"), 3_000)).toBe(false);
    expect(await state.a2aTasks.loadA2aTask("k1")).toMatchObject({ state: "TASK_STATE_CANCELED" });
    expect(await state.a2aTasks.saveA2aTask(stored("k1", "TASK_STATE_CANCELED"), 4_000)).toBe(true);
  });

  it("counts each principal's rows as they are inserted, replaced, handed over and removed", async () => {
    const count = (principal: string) => state.a2aTasks.countA2aTasks(principal);
    await state.a2aTasks.saveA2aTask(stored("n1", "TASK_STATE_WORKING", "dave"), 50_000);
    await state.a2aTasks.saveA2aTask(stored("n1", "TASK_STATE_COMPLETED", "dave"), 50_100);
    await state.a2aTasks.saveA2aTask(stored("n2", "TASK_STATE_WORKING", "dave"), 50_200);
    await state.a2aTasks.saveA2aTask(stored("n3", "TASK_STATE_WORKING", "erin"), 50_300);
    // Another principal's save of the same id is refused, and counts for no one.
    await state.a2aTasks.saveA2aTask(stored("n1", "TASK_STATE_WORKING", "erin"), 50_400);
    expect([await count("dave"), await count("erin"), await count("nobody")]).toEqual([2, 1, 0]);
    // A row whose owner changes (no path of the router does it) moves its count with it.
    await store.sql.query("UPDATE trestle_a2a_tasks SET principal = 'erin' WHERE id = 'n2'");
    expect([await count("dave"), await count("erin")]).toEqual([1, 2]);
    await store.sql.query("DELETE FROM trestle_a2a_tasks WHERE id IN ('n1', 'n2', 'n3')");
    expect([await count("dave"), await count("erin")]).toEqual([0, 0]);
  });
});

describe("the MCP tasks' table, counted per principal", () => {
  it("counts the tasks of a principal that have not expired", async () => {
    const mcpTask = (id: string, principal: string, expiresAt: number) => ({
      id,
      namespace: "",
      principal,
      status: "working",
      document: {},
      createdAt: 0,
      expiresAt,
    });
    // Later than the other MCP tasks' tests' sweep (at 10,000), which must not count these.
    await state.mcpTasks.saveMcpTask(mcpTask("a", "alice", 25_000), 0);
    await state.mcpTasks.saveMcpTask(mcpTask("b", "alice", 11_000), 0);
    await state.mcpTasks.saveMcpTask(mcpTask("c", "bob", 25_000), 0);
    expect(await state.mcpTasks.countMcpTasks("alice", 12_000)).toBe(1);
    expect(await state.mcpTasks.countMcpTasks("bob", 12_000)).toBe(1);
    expect(await state.mcpTasks.countMcpTasks("carol", 12_000)).toBe(0);
  });
});

describe("the MCP tasks' table", () => {
  const task = (status: string, document: Record<string, unknown> = {}) => ({
    id: "m1",
    namespace: "team",
    principal: "alice",
    status,
    document: { taskId: "m1", status, ...document },
    createdAt: 1_000,
    expiresAt: 10_000,
  });

  it("saves, replaces and loads a task; an expired one is gone", async () => {
    await state.mcpTasks.saveMcpTask(task("working"), 1_000);
    await state.mcpTasks.saveMcpTask(task("completed", { result: { content: [] } }), 2_000);
    expect(await state.mcpTasks.loadMcpTask("m1", 5_000)).toEqual(
      task("completed", { result: { content: [] } }),
    );
    expect(await state.mcpTasks.loadMcpTask("m1", 10_000)).toBeUndefined();
    expect(await state.mcpTasks.loadMcpTask("nope", 5_000)).toBeUndefined();
    expect(await state.mcpTasks.removeExpiredMcpTasks(10_000)).toBe(1);
  });

  it("keeps clients' requests for the running replica: answers merge, a cancel sticks, a take clears them", async () => {
    await state.mcpTasks.saveMcpTask({ ...task("input_required"), id: "m2" }, 1_000);
    expect(await state.mcpTasks.requestMcpTask("m2", { inputResponses: { a: { action: "accept" } } })).toBe(
      true,
    );
    expect(await state.mcpTasks.requestMcpTask("m2", { inputResponses: { b: { roots: [] } } })).toBe(true);
    expect(await state.mcpTasks.requestMcpTask("m2", { cancel: true })).toBe(true);
    expect(await state.mcpTasks.requestMcpTask("unknown", { cancel: true })).toBe(false);
    // Saving the task's state does not drop requests not taken yet.
    await state.mcpTasks.saveMcpTask({ ...task("working"), id: "m2" }, 2_000);
    expect(await state.mcpTasks.takeMcpTaskRequests("m2")).toEqual({
      cancel: true,
      inputResponses: { a: { action: "accept" }, b: { roots: [] } },
    });
    expect(await state.mcpTasks.takeMcpTaskRequests("m2")).toEqual({});
  });
});

describe("the ended MCP sessions' table", () => {
  it("keeps an end until the session would have expired, and drops expired ends at the next one", async () => {
    await state.endedMcpSessions.endMcpSession("seal-1", 1_000, 5_000);
    expect(await state.endedMcpSessions.isMcpSessionEnded("seal-1", 4_999)).toBe(true);
    expect(await state.endedMcpSessions.isMcpSessionEnded("seal-1", 5_000)).toBe(false);
    expect(await state.endedMcpSessions.isMcpSessionEnded("seal-2", 1_000)).toBe(false);
    // Ended twice (a client retrying its DELETE): one end, as first recorded.
    await state.endedMcpSessions.endMcpSession("seal-1", 1_500, 9_000);
    expect(await state.endedMcpSessions.isMcpSessionEnded("seal-1", 6_000)).toBe(false);
    expect(await state.endedMcpSessions.mcpSessionsEndedSince(0)).toEqual(["seal-1"]);
    // The next end, after seal-1's expiry, takes it away.
    await state.endedMcpSessions.endMcpSession("seal-3", 6_000, 20_000);
    expect(await state.endedMcpSessions.mcpSessionsEndedSince(0)).toEqual(["seal-3"]);
    expect(await state.endedMcpSessions.mcpSessionsEndedSince(6_001)).toEqual([]);
  });

  it("announces each end to its subscribers, by digest", async () => {
    const heard: string[] = [];
    const stop = await state.endedMcpSessions.subscribeEndedMcpSessions(
      (digest) => heard.push(digest),
      () => undefined,
    );
    await state.endedMcpSessions.endMcpSession("seal-4", 7_000, 20_000);
    await state.endedMcpSessions.endMcpSession("seal-5", 7_000, 20_000);
    for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(heard).toEqual(["seal-4", "seal-5"]);
  });

  it("records an end in one statement: one round trip, its own transaction", async () => {
    // A client's DELETE waits on this; on the embedded store each statement costs as much as a whole end.
    const statements: string[] = [];
    const counted: StoreSqlClient = {
      ...store.sql,
      query: (sql, params) => {
        statements.push(sql);
        return store.sql.query(sql, params);
      },
      transaction: (work) => {
        statements.push("BEGIN");
        return store.sql.transaction((tx) =>
          work({
            ...tx,
            query: (sql, params) => {
              statements.push(sql);
              return tx.query(sql, params);
            },
          }),
        );
      },
    };
    const counting = createEndedMcpSessionTable(counted);
    const heard: string[] = [];
    const stop = await counting.subscribeEndedMcpSessions(
      (digest) => heard.push(digest),
      () => undefined,
    );
    await counting.endMcpSession("seal-a", 1_000, 5_000);
    expect(statements).toHaveLength(1);
    expect(await counting.mcpSessionsEndedSince(0)).toContain("seal-a");
    await counting.endMcpSession("seal-b", 6_000, 9_000);
    for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(heard).toEqual(["seal-a", "seal-b"]);
    // The same statement still drops the ends that expired (seal-a's at 5,000) and keeps a retried end once.
    await counting.endMcpSession("seal-b", 7_000, 12_000);
    const ended = await counting.mcpSessionsEndedSince(0);
    expect(ended).not.toContain("seal-a");
    expect(ended.filter((digest) => digest === "seal-b")).toHaveLength(1);
    expect(await counting.isMcpSessionEnded("seal-b", 8_999)).toBe(true);
    expect(await counting.isMcpSessionEnded("seal-b", 9_000)).toBe(false);
  });
});
