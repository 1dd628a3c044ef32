import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/index.js";

describe("MCP tasks in the store", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterAll(() => store.close());

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
    await store.saveMcpTask(task("working"), 1_000);
    await store.saveMcpTask(task("completed", { result: { content: [] } }), 2_000);
    expect(await store.loadMcpTask("m1", 5_000)).toEqual(task("completed", { result: { content: [] } }));
    expect(await store.loadMcpTask("m1", 10_000)).toBeUndefined();
    expect(await store.loadMcpTask("nope", 5_000)).toBeUndefined();
    expect(await store.removeExpiredMcpTasks(10_000)).toBe(1);
  });

  it("keeps clients' requests for the running replica: answers merge, a cancel sticks, a take clears them", async () => {
    await store.saveMcpTask({ ...task("input_required"), id: "m2" }, 1_000);
    expect(await store.requestMcpTask("m2", { inputResponses: { a: { action: "accept" } } })).toBe(true);
    expect(await store.requestMcpTask("m2", { inputResponses: { b: { roots: [] } } })).toBe(true);
    expect(await store.requestMcpTask("m2", { cancel: true })).toBe(true);
    expect(await store.requestMcpTask("unknown", { cancel: true })).toBe(false);
    // Saving the task's state does not drop requests not taken yet.
    await store.saveMcpTask({ ...task("working"), id: "m2" }, 2_000);
    expect(await store.takeMcpTaskRequests("m2")).toEqual({
      cancel: true,
      inputResponses: { a: { action: "accept" }, b: { roots: [] } },
    });
    expect(await store.takeMcpTaskRequests("m2")).toEqual({});
  });
});
