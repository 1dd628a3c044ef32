import { Task, TaskState } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { openStore, type Store } from "@trestle/registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreTaskStore, PrincipalUser } from "../src/a2a/task-store.js";
import { callerPrincipal } from "../src/calls/caller.js";
import type { A2aTaskTable } from "../src/state/a2a-tasks.js";
import { openServerState } from "../src/state/server-state.js";

const MINUTE = 60_000;
const callerAs = (principal: string) =>
  new ServerCallContext({ user: new PrincipalUser(callerPrincipal({ id: principal })) });
const context = callerAs("alice");
let store: Store;
let table: A2aTaskTable;

beforeAll(async () => {
  store = await openStore({ memory: true });
  table = (await openServerState(store.sql)).state.a2aTasks;
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
  const tasks = createStoreTaskStore(table, namespace, () => undefined, {
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

describe("the A2A task store's owners", () => {
  it("answers a task only to the principal that started it: to another it reads, lists and saves as absent", async () => {
    const { tasks } = storeAt("owned", 10 * MINUTE);
    const mallory = callerAs("mallory");
    await tasks.save(task("t-alice", "ctx-a"), context);
    expect((await tasks.load("t-alice", context))?.id).toBe("t-alice");
    expect(await tasks.load("t-alice", mallory)).toBeUndefined();
    const listed = await tasks.list(
      { pageSize: 10, status: TaskState.TASK_STATE_UNSPECIFIED } as never,
      mallory,
    );
    expect(listed.tasks).toEqual([]);
    // A save under the same id by another principal changes nothing of the owner's task.
    await tasks.save(
      Task.fromJSON({ id: "t-alice", contextId: "x", status: { state: "TASK_STATE_CANCELED" } }),
      mallory,
    );
    expect((await tasks.load("t-alice", context))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("owns nothing for a context without a principal", async () => {
    const { tasks } = storeAt("anonymous", 10 * MINUTE);
    await tasks.save(task("t-someone"), context);
    expect(await tasks.load("t-someone", new ServerCallContext())).toBeUndefined();
    await expect(tasks.save(task("t-none"), new ServerCallContext())).rejects.toThrow("known principal");
  });
});
