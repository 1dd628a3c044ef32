/**
 * The arguments of a skill tool call (`message`, `data`, `task`), checked.
 */
import { Code, type JsonObject, TrestleError } from "@trestle/core";

/** The arguments of a skill tool call, checked. */
interface SkillArguments {
  message?: string;
  data?: JsonObject;
  task?: string;
}

/** Checks a skill call's arguments. @throws TrestleError InvalidArgument naming the argument of the wrong type. */
export function skillArguments(args: JsonObject): SkillArguments {
  const out: SkillArguments = {};
  const { message, data, task } = args;
  if (message !== undefined) {
    if (typeof message !== "string")
      throw new TrestleError("'message' must be a string", Code.InvalidArgument);
    out.message = message;
  }
  if (data !== undefined) {
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      throw new TrestleError("'data' must be a JSON object", Code.InvalidArgument);
    }
    out.data = data;
  }
  if (task !== undefined) {
    if (typeof task !== "string") throw new TrestleError("'task' must be a string", Code.InvalidArgument);
    out.task = task;
  }
  return out;
}
