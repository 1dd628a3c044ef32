import { Code, TrestleError } from "@trestle/core";

/**
 * Where a conversation with an agent stands after a call: the A2A context, and the task when it waits for the
 * client (input or authentication required). The client gets it as an opaque handle and passes it back to carry
 * on; the router keeps nothing between the calls, so the next call may reach any replica.
 */
export interface TaskHandle {
  contextId: string;
  /** Set while the task waits for the client: the next message continues it. */
  taskId?: string;
  /** The task the previous turn ran, when it ended: the next message references it. */
  previousTaskId?: string;
}

const MAX_HANDLE_LENGTH = 2_048;

/** The handle's text: base64url JSON, opaque to clients (it holds no secret, only A2A ids). */
export function encodeTaskHandle(handle: TaskHandle): string {
  const body: Record<string, string> = { c: handle.contextId };
  if (handle.taskId) body.t = handle.taskId;
  if (handle.previousTaskId) body.p = handle.previousTaskId;
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

/**
 * Reads a handle made by {@link encodeTaskHandle}.
 * @throws TrestleError `InvalidArgument` when `text` is no such handle.
 */
export function decodeTaskHandle(text: string): TaskHandle {
  const invalid = () =>
    new TrestleError(
      "The 'task' argument is not a task handle this router gave out (pass back structuredContent.task of an earlier call)",
      Code.InvalidArgument,
    );
  if (text.length > MAX_HANDLE_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (typeof body !== "object" || body === null) throw invalid();
  const { c, t, p } = body as Record<string, unknown>;
  if (typeof c !== "string" || c === "") throw invalid();
  if ((t !== undefined && typeof t !== "string") || (p !== undefined && typeof p !== "string"))
    throw invalid();
  return {
    contextId: c,
    ...(typeof t === "string" && t ? { taskId: t } : {}),
    ...(typeof p === "string" && p ? { previousTaskId: p } : {}),
  };
}
