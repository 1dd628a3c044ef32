/**
 * An agent's question (a task in `INPUT_REQUIRED`) put to the router's client as one input request, and the
 * client's answers read back.
 */
import { Code, type InputAnswers, type JsonObject, type JsonValue, TrestleError } from "@trestle/core";
import { decodeTaskHandle, type TaskHandle } from "./task-handle.js";

/** The key of the one input request an `INPUT_REQUIRED` task makes, and of the answer to it. */
export const A2A_INPUT_KEY = "reply";

/** The schema of the answer the agent's question asks for: one line of text. */
export const REPLY_SCHEMA: JsonObject = {
  type: "object",
  properties: { [A2A_INPUT_KEY]: { type: "string", description: "Your answer to the agent" } },
  required: [A2A_INPUT_KEY],
};

/** The text of an answer to the agent's question: the `reply` field, else the whole answer as JSON. */
export function answerText(content: JsonValue | undefined): string | undefined {
  if (content === undefined || content === null) return undefined;
  if (typeof content === "object" && !Array.isArray(content)) {
    const reply = content[A2A_INPUT_KEY];
    if (typeof reply === "string") return reply;
  }
  return typeof content === "string" ? content : JSON.stringify(content);
}

/** Reads the client's answers to an earlier `inputRequired` (MCP's elicitation result shape). */
export function fromAnswers(input: InputAnswers): { handle: TaskHandle; accepted: boolean; text?: string } {
  if (!input.state) {
    throw new TrestleError(
      "The answers carry no state: repeat the call with the state given",
      Code.InvalidArgument,
    );
  }
  const handle = decodeTaskHandle(input.state);
  const response = input.responses[A2A_INPUT_KEY] ?? Object.values(input.responses)[0];
  if (!response) throw new TrestleError(`The answers hold no '${A2A_INPUT_KEY}'`, Code.InvalidArgument);
  const action = response.action;
  const text = answerText(response.content ?? response.result);
  const accepted = (action === undefined || action === "accept") && text !== undefined;
  return { handle, accepted, ...(text !== undefined ? { text } : {}) };
}
