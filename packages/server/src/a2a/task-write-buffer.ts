import type { A2aTaskTable, StoredA2aTask } from "../state/a2a-tasks.js";

/** The state a cancellation leaves, as A2A JSON names it. */
const CANCELED = "TASK_STATE_CANCELED";

/**
 * States after which a task waits for nothing more on this replica: final ones, and those that wait for the
 * client (whose next message may reach another replica). Written at once; the buffer then lets the task go.
 */
const SETTLED_STATES: ReadonlySet<string> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  CANCELED,
  "TASK_STATE_REJECTED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);

/** Options of {@link createTaskWriteBuffer}. */
export interface TaskWriteBufferOptions {
  /** How long a running task's intermediate state may wait before it is written (the latest one then). */
  delayMs: number;
  /** The most running tasks buffered at once; beyond them, every save is written as it comes. */
  maxTasks: number;
  /** Told when a write was refused because the stored task is cancelled (another replica's `CancelTask`). */
  onCancelledElsewhere: (taskId: string) => void;
}

/**
 * The writes of the A2A tasks this replica runs. A task's first state is written at once (so that it counts
 * against its principal's bound, and `GetTask`, `ListTasks`, `CancelTask` and `SubscribeToTask` find it on any
 * replica), so is each change of state; updates that keep the state (artifacts, progress) are coalesced: the
 * latest is written after at most `delayMs`, or with the next change, whichever comes first. A call that goes
 * SUBMITTED, WORKING, COMPLETED within that delay is three writes, whatever artifacts it published between.
 */
export interface TaskWriteBuffer {
  /** Stores `task` as described above; resolves once a write that is due now is done. */
  save(task: StoredA2aTask): Promise<void>;
  /**
   * The latest state saved of a task running on this replica and not settled yet (its stored row may be up to
   * `delayMs` older), or `undefined`: the caller then reads the store.
   */
  running(taskId: string): StoredA2aTask | undefined;
}

interface BufferedTask {
  /** The latest state saved, written or not. */
  latest: StoredA2aTask;
  /** Set while a coalesced write is scheduled. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The task's writes in order: the next one starts after this settles. */
  chain: Promise<void>;
}

/** Creates a {@link TaskWriteBuffer} writing to `store`. */
export function createTaskWriteBuffer(
  store: Pick<A2aTaskTable, "saveA2aTask" | "loadA2aTask">,
  options: TaskWriteBufferOptions,
): TaskWriteBuffer {
  const buffered = new Map<string, BufferedTask>();
  const sameOwner = (a: StoredA2aTask, b: StoredA2aTask) =>
    a.principal === b.principal && a.namespace === b.namespace;

  /** Writes `task`; `false` when the store kept what it holds (another owner's task, or a cancellation). */
  async function write(task: StoredA2aTask): Promise<boolean> {
    if (await store.saveA2aTask(task, task.updatedAt ?? Date.now())) return true;
    if (task.state !== CANCELED) {
      const current = await store.loadA2aTask(task.id);
      if (current && sameOwner(current, task) && current.state === CANCELED)
        options.onCancelledElsewhere(task.id);
    }
    return false;
  }

  /** Queues a write of `task` after the task's earlier ones; a refused write lets the task go. */
  function enqueue(entry: BufferedTask, task: StoredA2aTask): Promise<boolean> {
    const written = entry.chain.then(() => write(task));
    entry.chain = written.then(
      (saved) => {
        if (!saved && buffered.get(task.id) === entry) buffered.delete(task.id);
      },
      // A failed write is retried by the task's next one, which holds all of it.
      () => undefined,
    );
    return written;
  }

  return {
    async save(task) {
      const settled = SETTLED_STATES.has(task.state);
      const entry = buffered.get(task.id);
      if (entry && !sameOwner(entry.latest, task)) {
        // Another owner's save of a running task's id: the store refuses it; nothing buffered changes.
        await write(task);
        return;
      }
      // A new state is written at once (a streaming client that saw it may ask another replica); updates that
      // keep the state (artifacts, progress) are coalesced.
      if (entry && !settled && task.state === entry.latest.state) {
        entry.latest = task;
        if (entry.timer === undefined) {
          entry.timer = setTimeout(() => {
            entry.timer = undefined;
            void enqueue(entry, entry.latest).catch(() => undefined);
          }, options.delayMs);
          entry.timer.unref();
        }
        return;
      }
      if (entry) {
        clearTimeout(entry.timer);
        entry.timer = undefined;
        entry.latest = task;
        try {
          await enqueue(entry, task);
        } finally {
          if (settled && buffered.get(task.id) === entry) buffered.delete(task.id);
        }
        return;
      }
      if (settled || buffered.size >= options.maxTasks) {
        await write(task);
        return;
      }
      const fresh: BufferedTask = { latest: task, timer: undefined, chain: Promise.resolve() };
      buffered.set(task.id, fresh);
      try {
        await enqueue(fresh, task);
      } catch (error) {
        buffered.delete(task.id);
        throw error;
      }
    },
    running(taskId) {
      return buffered.get(taskId)?.latest;
    },
  };
}
