import { type ListTasksRequest, type ListTasksResponse, Task, TaskState, taskStateToJSON } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore, User } from "@a2a-js/sdk/server";
import type { CallerPrincipal } from "../calls/caller.js";
import type { A2aTaskTable, StoredA2aTask } from "../state/a2a-tasks.js";
import { storedTaskDocument } from "./stored-task-document.js";

/** How long tasks stay readable after their last change. */
export interface TaskRetention {
  retentionMs: number;
  /** The clock the age is read on; `Date.now` by default. */
  now?: () => number;
}

/** The most tasks one `ListTasks` answers. */
const MAX_PAGE = 100;

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
 * `CANCELED` is dropped and reported to `onCancelledElsewhere`, which stops the call.
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
  return {
    async save(task: Task, context: ServerCallContext) {
      const principal = principalOf(context)?.id;
      if (principal === undefined) throw new Error("An A2A task is saved only for a known principal");
      const state = task.status?.state ?? TaskState.TASK_STATE_SUBMITTED;
      if (state !== TaskState.TASK_STATE_CANCELED) {
        const current = await store.loadA2aTask(task.id);
        if (visible(current, principal) && current.state === "TASK_STATE_CANCELED") {
          onCancelledElsewhere(task.id);
          return;
        }
      }
      // The store refuses to replace another owner's task of the same id; nothing of it is read or changed.
      await store.saveA2aTask(
        {
          id: task.id,
          namespace,
          principal,
          contextId: task.contextId,
          state: taskStateToJSON(state),
          document: storedTaskDocument(task),
        },
        now(),
      );
    },
    async load(taskId: string, context: ServerCallContext) {
      const stored = await store.loadA2aTask(taskId);
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
