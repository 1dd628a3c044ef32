import { Task, TaskState } from "@a2a-js/sdk";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import { openStore, type Store } from "@trestle/registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreTaskStore } from "../src/a2a/task-store.js";

const MINUTE = 60_000;
const context = {} as ServerCallContext;
let store: Store;

beforeAll(async () => {
  store = await openStore({ memory: true });
});
afterAll(async () => {
  await store.close();
});

function task(id: string, contextId = "ctx"): Task {
  return Task.fromJSON({ id, contextId, status: { state: "TASK_STATE_COMPLETED" } });
}

/** A task store on a clock the test moves. */
function storeAt(namespace: string, retentionMs: number) {
  const clock = { now: 1_000_000 };
  const tasks = createStoreTaskStore(store, namespace, () => undefined, {
    retentionMs,
    now: () => clock.now,
  });
  return { tasks, clock };
}

describe("the A2A task store's retention", () => {
  it("reads a task until its retention has passed since its last change, then as absent", async () => {
    const { tasks, clock } = storeAt("kept", 10 * MINUTE);
    await tasks.save(task("t-kept"), context);
    clock.now += 10 * MINUTE;
    expect((await tasks.load("t-kept", context))?.id).toBe("t-kept");
    clock.now += 1;
    expect(await tasks.load("t-kept", context)).toBeUndefined();
  });

  it("counts from the last change: an update keeps the task for another full retention", async () => {
    const { tasks, clock } = storeAt("updated", 10 * MINUTE);
    await tasks.save(task("t-updated"), context);
    clock.now += 9 * MINUTE;
    await tasks.save(task("t-updated"), context);
    clock.now += 9 * MINUTE;
    expect((await tasks.load("t-updated", context))?.id).toBe("t-updated");
  });

  it("leaves expired tasks out of ListTasks", async () => {
    const { tasks, clock } = storeAt("listed", 10 * MINUTE);
    await tasks.save(task("t-old"), context);
    clock.now += 6 * MINUTE;
    await tasks.save(task("t-new"), context);
    clock.now += 5 * MINUTE;
    const listed = await tasks.list(
      { pageSize: 10, status: TaskState.TASK_STATE_UNSPECIFIED } as never,
      context,
    );
    expect(listed.tasks.map((t) => t.id)).toEqual(["t-new"]);
  });

  it("still reads a task of another namespace as absent", async () => {
    const mine = storeAt("mine", 10 * MINUTE);
    const theirs = storeAt("theirs", 10 * MINUTE);
    await theirs.tasks.save(task("t-theirs"), context);
    expect(await mine.tasks.load("t-theirs", context)).toBeUndefined();
    expect((await theirs.tasks.load("t-theirs", context))?.id).toBe("t-theirs");
  });
});
