import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/index.js";

describe("A2A tasks in the store", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ memory: true });
  });
  afterAll(() => store.close());

  it("saves, replaces, loads, lists by namespace and context, and removes old ones", async () => {
    const task = (state: string) => ({
      id: "t1",
      namespace: "team",
      contextId: "c1",
      state,
      document: { id: "t1", contextId: "c1", status: { state } },
    });
    await store.saveA2aTask(task("TASK_STATE_WORKING"), 1_000);
    await store.saveA2aTask(task("TASK_STATE_COMPLETED"), 2_000);
    await store.saveA2aTask({ ...task("TASK_STATE_WORKING"), id: "t2", contextId: "c2" }, 3_000);
    expect(await store.loadA2aTask("t1")).toEqual({ ...task("TASK_STATE_COMPLETED"), updatedAt: 2_000 });
    expect(await store.loadA2aTask("nope")).toBeUndefined();
    expect((await store.listA2aTasks("team", { limit: 10 })).map((t) => t.id)).toEqual(["t2", "t1"]);
    expect((await store.listA2aTasks("team", { contextId: "c1", limit: 10 })).map((t) => t.id)).toEqual([
      "t1",
    ]);
    expect(await store.listA2aTasks("", { limit: 10 })).toEqual([]);
    expect(await store.removeA2aTasks(2_500)).toBe(1);
    expect(await store.loadA2aTask("t1")).toBeUndefined();
  });
});
