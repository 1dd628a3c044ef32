/** A part of an A2A v1.0 message or artifact, as JSON carries it (text parts hold `text`). */
interface JsonPart {
  text?: unknown;
}

/**
 * The text an A2A v1.0 JSON-RPC answer to `SendMessage` carries: the first text part of the task's artifacts (a
 * completed task) or of the message (a direct answer).
 * @throws Error with the JSON-RPC error, a task that did not complete, or an answer without text.
 */
export function a2aAnswerText(answer: unknown): string {
  const reply = answer as {
    error?: { code?: unknown; message?: unknown };
    result?: {
      task?: { status?: { state?: unknown }; artifacts?: { parts?: JsonPart[] }[] };
      message?: { parts?: JsonPart[] };
    };
  };
  if (reply.error)
    throw new Error(`JSON-RPC error ${String(reply.error.code)}: ${String(reply.error.message)}`);
  const task = reply.result?.task;
  if (task && task.status?.state !== "TASK_STATE_COMPLETED")
    throw new Error(`the task ended ${String(task.status?.state)}, not TASK_STATE_COMPLETED`);
  const parts = task
    ? (task.artifacts ?? []).flatMap((a) => a.parts ?? [])
    : (reply.result?.message?.parts ?? []);
  const text = parts.find((p) => typeof p.text === "string")?.text;
  if (typeof text !== "string")
    throw new Error(`no text part in the answer: ${JSON.stringify(answer).slice(0, 200)}`);
  return text;
}
