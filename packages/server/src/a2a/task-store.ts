import { type ListTasksRequest, type ListTasksResponse, Task, TaskState, taskStateToJSON } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore, User } from "@a2a-js/sdk/server";
import type { CallerPrincipal } from "../calls/caller.js";
import type { A2aTaskTable, StoredA2aTask } from "../state/a2a-tasks.js";
import { storedTaskDocument } from "./stored-task-document.js";
import { createTaskWriteBuffer } from "./task-write-buffer.js";

/** How long tasks stay readable after their last change. */
export interface TaskRetention {
  retentionMs: number;
  /** The clock the age is read on; `Date.now` by default. */
  now?: () => number;
}

/** The most tasks one `ListTasks` answers. */
const MAX_PAGE = 100;
/**
 * How long a running task's intermediate states (`WORKING`, artifact updates) may wait before the latest is
 * written: how stale another replica may read a running task.
 */
const INTERMEDIATE_WRITE_DELAY_MS = 200;
/** The most running tasks per namespace whose intermediate writes are coalesced (beyond, each is written). */
const MAX_BUFFERED_TASKS = 10_000;

/**
 * The caller of an A2A request as the A2A SDK's `User`: the principal the router admitted it as. The SDK scopes
 * its in-memory event buses by `userName`, and the task store reads the owner from it.
 */
export class PrincipalUser implements User {
  constructor(readonly principal: CallerPrincipal) {}

  /** The principal's id: what the SDK scopes its event buses by, and what owns the tasks. */
  get userName(): string {
    return this.principal.id;
  }

  get isAuthenticated(): boolean {
    return true;
  }
}

/** The principal behind a call context, or `undefined` for a context without one (which owns nothing). */
export function principalOf(context: ServerCallContext | undefined): CallerPrincipal | undefined {
  const user = context?.user;
  return user instanceof PrincipalUser ? user.principal : undefined;
}

/**
 * The A2A front's tasks in the router's store, one namespace's view: any replica answers `GetTask`, `CancelTask`
 * and `SubscribeToTask` for a task another started. A task answers only the principal that started it (the call
 * context's {@link PrincipalUser}): to anyone else, and in another namespace, it reads exactly as an absent one.
 * What is stored is the task with its messages bounded and redacted (see `storedTaskDocument`).
 *
 * A cancellation another replica wrote wins over the running replica's later updates: a save over a stored
 * `CANCELED` is dropped (by the store) and reported to `onCancelledElsewhere`, which stops the call.
 *
 * The tasks this replica runs are written through a {@link createTaskWriteBuffer}: the first state and each
 * settled one at once, those between coalesced (written within {@link INTERMEDIATE_WRITE_DELAY_MS}); the SDK's
 * reloads of a running task between its events are answered from the latest state saved, not the store.
 */
export function createStoreTaskStore(
  store: A2aTaskTable,
  namespace: string,
  onCancelledElsewhere: (taskId: string) => void,
  retention: TaskRetention = { retentionMs: Number.POSITIVE_INFINITY },
): TaskStore {
  const now = retention.now ?? Date.now;
  /** Of this namespace and principal, and not expired: a task past its retention reads as absent before the sweep. */
  const visible = (
    stored: StoredA2aTask | undefined,
    principal: string | undefined,
  ): stored is StoredA2aTask =>
    stored !== undefined &&
    principal !== undefined &&
    stored.principal === principal &&
    stored.namespace === namespace &&
    (stored.updatedAt === undefined || stored.updatedAt >= now() - retention.retentionMs);
  const writes = createTaskWriteBuffer(store, {
    delayMs: INTERMEDIATE_WRITE_DELAY_MS,
    maxTasks: MAX_BUFFERED_TASKS,
    onCancelledElsewhere,
  });
  return {
    async save(task: Task, context: ServerCallContext) {
      const principal = principalOf(context)?.id;
      if (principal === undefined) throw new Error("An A2A task is saved only for a known principal");
      const state = task.status?.state ?? TaskState.TASK_STATE_SUBMITTED;
      // The store refuses to replace another owner's task of the same id; nothing of it is read or changed.
      await writes.save({
        id: task.id,
        namespace,
        principal,
        contextId: task.contextId,
        state: taskStateToJSON(state),
        document: storedTaskDocument(task),
        updatedAt: now(),
      });
    },
    async load(taskId: string, context: ServerCallContext) {
      const stored = writes.running(taskId) ?? (await store.loadA2aTask(taskId));
      return visible(stored, principalOf(context)?.id) ? Task.fromJSON(stored.document) : undefined;
    },
    async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
      const principal = principalOf(context)?.id;
      const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), MAX_PAGE);
      const stored =
        principal === undefined
          ? []
          : await store.listA2aTasks(namespace, principal, {
              ...(params.contextId ? { contextId: params.contextId } : {}),
              limit: pageSize,
            });
      const tasks = stored
        .filter((s) => visible(s, principal))
        .map((s) => Task.fromJSON(s.document))
        .filter(
          (t) =>
            params.status === TaskState.TASK_STATE_UNSPECIFIED ||
            !params.status ||
            t.status?.state === params.status,
        )
        .map((t) => ({
          ...t,
          history: params.historyLength === 0 ? [] : t.history,
          artifacts: params.includeArtifacts === false ? [] : t.artifacts,
        }));
      return { tasks, nextPageToken: "", pageSize, totalSize: tasks.length };
    },
  };
}
