/**
 * What one exchange with an agent left (a direct reply, or a task's state, status and artifacts), and the names
 * of task states.
 */
import { type Message, type Part, type Task, TaskState } from "@a2a-js/sdk";

/** A task state as a short name (`input-required`), as MCP-side results carry it. */
export function taskStateName(state: TaskState | undefined): string {
  switch (state) {
    case TaskState.TASK_STATE_SUBMITTED:
      return "submitted";
    case TaskState.TASK_STATE_WORKING:
      return "working";
    case TaskState.TASK_STATE_COMPLETED:
      return "completed";
    case TaskState.TASK_STATE_FAILED:
      return "failed";
    case TaskState.TASK_STATE_CANCELED:
      return "canceled";
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return "input-required";
    case TaskState.TASK_STATE_REJECTED:
      return "rejected";
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return "auth-required";
    default:
      return "unknown";
  }
}

/** Whether a task state is final (completed, failed, canceled or rejected). */
export function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}

/** What one exchange (one message sent, its reply or stream read) left. */
export interface Exchange {
  /** A direct reply (no task). */
  message?: Message;
  taskId?: string;
  contextId: string;
  state?: TaskState;
  statusParts: Part[];
  /** Artifacts by id, in the order they first came, parts appended as the agent streamed them. */
  artifacts: Map<string, Part[]>;
}

/** Records a task (its id, context, state, status and artifacts) on the exchange. */
export function fromTask(task: Task, into: Exchange): void {
  into.taskId = task.id;
  into.contextId = task.contextId || into.contextId;
  into.state = task.status?.state;
  into.statusParts = task.status?.message?.parts ?? [];
  for (const artifact of task.artifacts) into.artifacts.set(artifact.artifactId, [...artifact.parts]);
}
