import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ToolCallEvent } from "@trestle/core/events";

/** The UTF-8 size of `value` as JSON. */
export const jsonSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** A STARTED event of an `upload` tool with no payload, `extra` over it. */
export function startedEvent(extra: Record<string, unknown> = {}, id = "e1"): ToolCallEvent {
  return {
    type: "started",
    eventId: id,
    timestamp: 1,
    toolName: "upload",
    toolType: "files",
    kind: "tool",
    arguments: {},
    headers: {},
    ...extra,
  } as ToolCallEvent;
}

/** V8's collector, made callable in this process (as `--expose-gc` would). */
export function garbageCollector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
