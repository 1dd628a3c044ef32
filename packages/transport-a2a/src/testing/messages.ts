import {
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type Task,
  type TaskState,
  type TaskStatus,
} from "@a2a-js/sdk";
import type { JsonObject } from "@trestle/core";
import { dataPart, textPart } from "../a2a-content.js";

export { dataPart, textPart };

/**
 * The data part that names a tool and its arguments, `{"tool": NAME, "arguments": {...}}`: what an A2A client
 * sends to call one tool of the router's agent (or an agent that reads its call the same way).
 */
export function toolCallPart(tool: string, args: JsonObject): Part {
  return dataPart({ tool, arguments: args });
}

/**
 * A message with every field the SDK's types require, from `role` with `parts`; `extra` overrides any field (a
 * `taskId` and `contextId` continue a task). The message id is fresh each time.
 */
export function a2aMessage(role: Role, parts: Part[], extra: Partial<Message> = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: "",
    taskId: "",
    role,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

/**
 * The parameters of `SendMessage` / `SendStreamingMessage` for a user message of `parts`, as the SDK's client
 * takes them; `extra` overrides fields of the message.
 *
 * @example
 * ```ts
 * const task = (await client.sendMessage(sendMessageParams([toolCallPart("echo", { city: "Oslo" })]))) as Task;
 * ```
 */
export function sendMessageParams(parts: Part[], extra: Partial<Message> = {}): SendMessageRequest {
  return {
    tenant: "",
    message: a2aMessage(Role.ROLE_USER, parts, extra),
    configuration: undefined,
    metadata: undefined,
  };
}

/** A task status in `state`, stamped now, with an optional message from the agent. */
export function taskStatus(state: TaskState, message?: Message): TaskStatus {
  return { state, message, timestamp: new Date().toISOString() };
}

/** The text of `parts`' text parts, joined; other parts are left out. */
export function partsText(parts: readonly Part[]): string {
  return parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join("");
}

/** The text of a task's artifacts, joined in order. */
export function artifactText(task: Task): string {
  return partsText(task.artifacts.flatMap((a) => a.parts));
}

/** The text of the message on a task status (the agent's question, or why it refused), or "" when it has none. */
export function statusText(status: TaskStatus | undefined): string {
  return partsText(status?.message?.parts ?? []);
}
