import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/index.js";

describe("A2A tasks in the store", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterAll(() => store.close());

  const task = (state: string, principal = "alice") => ({
    id: "t1",
    namespace: "team",
    principal,
    contextId: "c1",
    state,
    document: { id: "t1", contextId: "c1", status: { state } },
  });

  it("saves, replaces, loads, lists by namespace, principal and context, and removes old ones", async () => {
    expect(await store.saveA2aTask(task("TASK_STATE_WORKING"), 1_000)).toBe(true);
    expect(await store.saveA2aTask(task("TASK_STATE_COMPLETED"), 2_000)).toBe(true);
    await store.saveA2aTask({ ...task("TASK_STATE_WORKING"), id: "t2", contextId: "c2" }, 3_000);
    await store.saveA2aTask({ ...task("TASK_STATE_WORKING", "bob"), id: "t3" }, 3_500);
    expect(await store.loadA2aTask("t1")).toEqual({ ...task("TASK_STATE_COMPLETED"), updatedAt: 2_000 });
    expect(await store.loadA2aTask("nope")).toBeUndefined();
    expect((await store.listA2aTasks("team", "alice", { limit: 10 })).map((t) => t.id)).toEqual(["t2", "t1"]);
    expect((await store.listA2aTasks("team", "bob", { limit: 10 })).map((t) => t.id)).toEqual(["t3"]);
    expect(
      (await store.listA2aTasks("team", "alice", { contextId: "c1", limit: 10 })).map((t) => t.id),
    ).toEqual(["t1"]);
    expect(await store.listA2aTasks("", "alice", { limit: 10 })).toEqual([]);
    expect(await store.countA2aTasks("alice", 0)).toBe(2);
    expect(await store.countA2aTasks("alice", 2_500)).toBe(1);
    expect(await store.removeA2aTasks(2_500)).toBe(1);
    expect(await store.loadA2aTask("t1")).toBeUndefined();
  });

  it("never lets another principal's save replace a task", async () => {
    expect(await store.saveA2aTask({ ...task("TASK_STATE_WORKING"), id: "owned" }, 10_000)).toBe(true);
    const stolen = { ...task("TASK_STATE_CANCELED", "mallory"), id: "owned", document: { stolen: true } };
    expect(await store.saveA2aTask(stolen, 11_000)).toBe(false);
    expect(await store.loadA2aTask("owned")).toMatchObject({
      principal: "alice",
      state: "TASK_STATE_WORKING",
    });
  });
});

describe("MCP tasks counted per principal", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterAll(() => store.close());

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
    await store.saveMcpTask(mcpTask("a", "alice", 5_000), 0);
    await store.saveMcpTask(mcpTask("b", "alice", 1_000), 0);
    await store.saveMcpTask(mcpTask("c", "bob", 5_000), 0);
    expect(await store.countMcpTasks("alice", 2_000)).toBe(1);
    expect(await store.countMcpTasks("bob", 2_000)).toBe(1);
    expect(await store.countMcpTasks("carol", 2_000)).toBe(0);
  });
});
