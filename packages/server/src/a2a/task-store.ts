import { type ListTasksRequest, type ListTasksResponse, Task, TaskState, taskStateToJSON } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { Store, StoredA2aTask } from "@trestle/registry";

/** How long tasks stay readable after their last change. */
export interface TaskRetention {
  retentionMs: number;
  /** The clock the age is read on; `Date.now` by default. */
  now?: () => number;
}

/** The most tasks one `ListTasks` answers. */
const MAX_PAGE = 100;

/**
 * The A2A front's tasks in the router's store, one namespace's view: any replica answers `GetTask`, `CancelTask`
 * and `SubscribeToTask` for a task another started. A task of another namespace reads as absent.
 *
 * A cancellation another replica wrote wins over the running replica's later updates: a save over a stored
 * `CANCELED` is dropped and reported to `onCancelledElsewhere`, which stops the call.
 */
export function createStoreTaskStore(
  store: Store,
  namespace: string,
  onCancelledElsewhere: (taskId: string) => void,
  retention: TaskRetention = { retentionMs: Number.POSITIVE_INFINITY },
): TaskStore {
  const now = retention.now ?? Date.now;
  /** Of this namespace and not expired: a task past its retention reads as absent before the sweep removes it. */
  const visible = (stored: StoredA2aTask | undefined): stored is StoredA2aTask =>
    stored !== undefined &&
    stored.namespace === namespace &&
    (stored.updatedAt === undefined || stored.updatedAt >= now() - retention.retentionMs);
  return {
    async save(task: Task, _context: ServerCallContext) {
      const state = task.status?.state ?? TaskState.TASK_STATE_SUBMITTED;
      if (state !== TaskState.TASK_STATE_CANCELED) {
        const current = await store.loadA2aTask(task.id);
        if (current && current.namespace === namespace && current.state === "TASK_STATE_CANCELED") {
          onCancelledElsewhere(task.id);
          return;
        }
      }
      await store.saveA2aTask(
        {
          id: task.id,
          namespace,
          contextId: task.contextId,
          state: taskStateToJSON(state),
          document: Task.toJSON(task) as Record<string, unknown>,
        },
        now(),
      );
    },
    async load(taskId: string) {
      const stored = await store.loadA2aTask(taskId);
      return visible(stored) ? Task.fromJSON(stored.document) : undefined;
    },
    async list(params: ListTasksRequest): Promise<ListTasksResponse> {
      const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), MAX_PAGE);
      const stored = await store.listA2aTasks(namespace, {
        ...(params.contextId ? { contextId: params.contextId } : {}),
        limit: pageSize,
      });
      const tasks = stored
        .filter(visible)
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
