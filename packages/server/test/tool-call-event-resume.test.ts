import { createEventHub } from "@trestle/bridge";
import type { ToolCallEvent } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { resumableToolCallEvents, toolCallSseId } from "../src/management/tool-call-event-resume.js";

function call(n: number, toolName = "echo"): [ToolCallEvent, ToolCallEvent] {
  const base = { eventId: `call-${n}`, toolName, toolType: "fixture", kind: "tool" as const, timestamp: n };
  return [
    { ...base, type: "started", arguments: {}, headers: {} },
    { ...base, type: "completed", isError: false, content: [], duration: 1 },
  ];
}

async function take(stream: AsyncIterable<ToolCallEvent>, count: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const event of stream) {
    ids.push(toolCallSseId(event));
    if (ids.length === count) break;
  }
  return ids;
}

describe("tool-call events resumed after a Last-Event-ID", () => {
  it("names each frame uniquely: a call's started and completed share an eventId, not an SSE id", () => {
    const [started, completed] = call(1);
    expect(toolCallSseId(started)).toBe("call-1:started");
    expect(toolCallSseId(completed)).toBe("call-1:completed");
  });

  it("replays the history after the id, then goes on live, with nothing twice", async () => {
    const hub = createEventHub();
    for (const event of [...call(1), ...call(2)]) hub.emit(event);
    const controller = new AbortController();
    const stream = resumableToolCallEvents(hub, { signal: controller.signal, lastEventId: "call-1:started" });
    const reading = take(stream, 5);
    await new Promise((r) => setTimeout(r, 10));
    for (const event of call(3)) hub.emit(event);
    expect(await reading).toEqual([
      "call-1:completed",
      "call-2:started",
      "call-2:completed",
      "call-3:started",
      "call-3:completed",
    ]);
    controller.abort();
  });

  it("applies the filter to the replay, and starts live for an id the history no longer holds", async () => {
    const hub = createEventHub();
    for (const event of [...call(1, "a"), ...call(2, "b")]) hub.emit(event);
    const filtered = resumableToolCallEvents(hub, {
      signal: new AbortController().signal,
      lastEventId: "call-1:started",
      filter: (e) => e.toolName === "b",
    });
    expect(await take(filtered, 2)).toEqual(["call-2:started", "call-2:completed"]);
    const controller = new AbortController();
    const unknown = resumableToolCallEvents(hub, { signal: controller.signal, lastEventId: "gone:started" });
    const reading = take(unknown, 2);
    await new Promise((r) => setTimeout(r, 10));
    for (const event of call(3)) hub.emit(event);
    expect(await reading).toEqual(["call-3:started", "call-3:completed"]);
    controller.abort();
  });
});
