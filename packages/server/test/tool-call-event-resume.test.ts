import { createEventHub, type EventHub } from "@trestle/bridge";
import type { ToolCallEvent } from "@trestle/core/events";
import { describe, expect, it } from "vitest";
import { subscribeResumable, toolCallSseId } from "../src/management/tool-call-event-resume.js";

function call(n: number, toolName = "echo"): [ToolCallEvent, ToolCallEvent] {
  const base = { eventId: `call-${n}`, toolName, toolType: "fixture", kind: "tool" as const, timestamp: n };
  return [
    { ...base, type: "started", arguments: {}, headers: {} },
    { ...base, type: "completed", isError: false, content: [], duration: 1 },
  ];
}

/** The SSE ids `subscribeResumable` delivers, and the JSON each came with, parsed back. */
function collect(hub: EventHub, options: Parameters<typeof subscribeResumable>[1]) {
  const ids: string[] = [];
  const subscription = subscribeResumable(hub, options, (event, json) => {
    expect(JSON.parse(json)).toEqual(event);
    ids.push(toolCallSseId(event));
  });
  return { ids, subscription };
}

describe("tool-call events resumed after a Last-Event-ID", () => {
  it("names each frame uniquely: a call's started and completed share an eventId, not an SSE id", () => {
    const [started, completed] = call(1);
    expect(toolCallSseId(started)).toBe("call-1:started");
    expect(toolCallSseId(completed)).toBe("call-1:completed");
  });

  it("replays the history after the id, then goes on live, with nothing twice", () => {
    const hub = createEventHub();
    for (const event of [...call(1), ...call(2)]) hub.emit(event);
    const { ids, subscription } = collect(hub, { lastEventId: "call-1:started" });
    expect(ids).toEqual(["call-1:completed", "call-2:started", "call-2:completed"]);
    for (const event of call(3)) hub.emit(event);
    subscription.unsubscribe();
    for (const event of call(4)) hub.emit(event);
    expect(ids).toEqual([
      "call-1:completed",
      "call-2:started",
      "call-2:completed",
      "call-3:started",
      "call-3:completed",
    ]);
  });

  it("applies the filter to the replay, and starts live for an id the history no longer holds", () => {
    const hub = createEventHub();
    for (const event of [...call(1, "a"), ...call(2, "b")]) hub.emit(event);
    const filtered = collect(hub, { lastEventId: "call-1:started", filter: (e) => e.toolName === "b" });
    expect(filtered.ids).toEqual(["call-2:started", "call-2:completed"]);
    const unknown = collect(hub, { lastEventId: "gone:started" });
    expect(unknown.ids).toEqual([]);
    for (const event of [...call(3, "a"), ...call(4, "b")]) hub.emit(event);
    expect(unknown.ids).toEqual(["call-3:started", "call-3:completed", "call-4:started", "call-4:completed"]);
    expect(filtered.ids).toEqual([
      "call-2:started",
      "call-2:completed",
      "call-4:started",
      "call-4:completed",
    ]);
  });
});
