import { describe, expect, it } from "vitest";
import { createTaskWriteBuffer } from "../src/a2a/task-write-buffer.js";
import type { A2aTaskTable, StoredA2aTask } from "../src/state/a2a-tasks.js";

/** A table in memory that records each write, refusing as the store does (another owner, a cancellation). */
function recordingTable() {
  const rows = new Map<string, StoredA2aTask>();
  const written: string[] = [];
  const table: Pick<A2aTaskTable, "saveA2aTask" | "loadA2aTask"> = {
    async saveA2aTask(task) {
      const current = rows.get(task.id);
      if (current && (current.principal !== task.principal || current.namespace !== task.namespace))
        return false;
      if (current?.state === "TASK_STATE_CANCELED" && task.state !== "TASK_STATE_CANCELED") return false;
      rows.set(task.id, task);
      written.push(`${task.id}:${task.state}`);
      return true;
    },
    async loadA2aTask(id) {
      return rows.get(id);
    },
  };
  return { table, rows, written };
}

function stored(id: string, state: string, principal = "alice"): StoredA2aTask {
  return { id, namespace: "", principal, contextId: "c", state, document: { id, state }, updatedAt: 1 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the A2A task write buffer", () => {
  it("writes each state of a call that completes at once, its artifact updates with the last", async () => {
    const { table, written } = recordingTable();
    const writes = createTaskWriteBuffer(table, { delayMs: 1_000, maxTasks: 10, onCancelledElsewhere() {} });
    await writes.save(stored("t", "TASK_STATE_SUBMITTED"));
    await writes.save(stored("t", "TASK_STATE_WORKING"));
    await writes.save({ ...stored("t", "TASK_STATE_WORKING"), document: { artifact: 1 } });
    expect(writes.running("t")?.document).toEqual({ artifact: 1 });
    await writes.save(stored("t", "TASK_STATE_COMPLETED"));
    expect(written).toEqual(["t:TASK_STATE_SUBMITTED", "t:TASK_STATE_WORKING", "t:TASK_STATE_COMPLETED"]);
    expect(writes.running("t")).toBeUndefined();
  });

  it("writes a long call's latest intermediate state within the delay", async () => {
    const { table, rows, written } = recordingTable();
    const writes = createTaskWriteBuffer(table, { delayMs: 20, maxTasks: 10, onCancelledElsewhere() {} });
    await writes.save(stored("t", "TASK_STATE_SUBMITTED"));
    await writes.save(stored("t", "TASK_STATE_WORKING"));
    await writes.save({ ...stored("t", "TASK_STATE_WORKING"), document: { progress: 2 } });
    await sleep(100);
    expect(rows.get("t")?.document).toEqual({ progress: 2 });
    expect(written).toEqual(["t:TASK_STATE_SUBMITTED", "t:TASK_STATE_WORKING", "t:TASK_STATE_WORKING"]);
  });

  it("writes settled states at once, and a task waiting for input is let go", async () => {
    const { table, written } = recordingTable();
    const writes = createTaskWriteBuffer(table, { delayMs: 1_000, maxTasks: 10, onCancelledElsewhere() {} });
    await writes.save(stored("t", "TASK_STATE_WORKING"));
    await writes.save(stored("t", "TASK_STATE_INPUT_REQUIRED"));
    expect(writes.running("t")).toBeUndefined();
    await writes.save(stored("r", "TASK_STATE_REJECTED"));
    expect(written).toEqual(["t:TASK_STATE_WORKING", "t:TASK_STATE_INPUT_REQUIRED", "r:TASK_STATE_REJECTED"]);
  });

  it("tells of a cancellation another replica stored, keeps it, and lets the task go", async () => {
    const { table, rows } = recordingTable();
    const cancelled: string[] = [];
    const writes = createTaskWriteBuffer(table, {
      delayMs: 10,
      maxTasks: 10,
      onCancelledElsewhere: (id) => cancelled.push(id),
    });
    await writes.save(stored("t", "TASK_STATE_WORKING"));
    rows.set("t", stored("t", "TASK_STATE_CANCELED"));
    await writes.save(stored("t", "TASK_STATE_WORKING"));
    await sleep(60);
    expect(cancelled).toEqual(["t"]);
    expect(writes.running("t")).toBeUndefined();
    await writes.save(stored("t", "TASK_STATE_COMPLETED"));
    expect(rows.get("t")?.state).toBe("TASK_STATE_CANCELED");
    await writes.save(stored("t", "TASK_STATE_CANCELED"));
    expect(rows.get("t")?.state).toBe("TASK_STATE_CANCELED");
  });

  it("never serves nor buffers another principal's save of a running task's id", async () => {
    const { table, rows } = recordingTable();
    const writes = createTaskWriteBuffer(table, { delayMs: 1_000, maxTasks: 10, onCancelledElsewhere() {} });
    await writes.save(stored("t", "TASK_STATE_WORKING"));
    await writes.save(stored("t", "TASK_STATE_CANCELED", "mallory"));
    expect(writes.running("t")?.principal).toBe("alice");
    expect(rows.get("t")?.principal).toBe("alice");
  });

  it("writes each save as it comes once it buffers its most tasks", async () => {
    const { table, written } = recordingTable();
    const writes = createTaskWriteBuffer(table, { delayMs: 1_000, maxTasks: 1, onCancelledElsewhere() {} });
    await writes.save(stored("a", "TASK_STATE_WORKING"));
    await writes.save(stored("b", "TASK_STATE_WORKING"));
    await writes.save(stored("b", "TASK_STATE_WORKING"));
    expect(writes.running("b")).toBeUndefined();
    expect(written).toEqual(["a:TASK_STATE_WORKING", "b:TASK_STATE_WORKING", "b:TASK_STATE_WORKING"]);
  });
});
