/**
 * A2A v1.0 messages in their JSON form, for a test that speaks JSON-RPC over `fetch` without the SDK's types.
 */

/** A v1.0 JSON message as `SendMessage` takes it under `params.message`. */
export interface WireMessage {
  messageId: string;
  role: "ROLE_USER";
  parts: Record<string, unknown>[];
  taskId?: string;
}

/** A task as a v1.0 JSON-RPC answer carries it, with the fields tests read. */
export interface WireTask {
  id: string;
  status: { state: string };
  history?: unknown[];
}

/** `SendMessage` params for a user message of JSON `parts`, optionally continuing `taskId`. */
export function wireMessageParams(
  parts: Record<string, unknown>[],
  taskId?: string,
): { message: WireMessage } {
  return {
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts, ...(taskId ? { taskId } : {}) },
  };
}

/** `SendMessage` params calling `tool` with `args` (a data part), optionally continuing `taskId`. */
export function wireToolCallParams(
  tool: string,
  args: Record<string, unknown>,
  taskId?: string,
): { message: WireMessage } {
  return wireMessageParams([{ data: { tool, arguments: args } }], taskId);
}

/**
 * The task a JSON-RPC `SendMessage` answered with (`result.task`).
 *
 * @throws Error naming the whole answer when it holds no task (an error, or a bare message).
 */
export function wireTaskOf(answer: { result?: unknown }): WireTask {
  const result = answer.result as { task?: unknown } | undefined;
  if (!result?.task) throw new Error(`expected a task, got ${JSON.stringify(answer)}`);
  return result.task as WireTask;
}
