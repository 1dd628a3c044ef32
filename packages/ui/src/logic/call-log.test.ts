import { describe, expect, it } from "vitest";
import type { ToolCallEvent } from "../api/types";
import { addCallEvent, callsFromEvents, matchesFilter, NO_FILTER, summarize } from "./call-log";

const started = (id: string, at: number, extra: Partial<ToolCallEvent> = {}): ToolCallEvent =>
  ({
    type: "started",
    eventId: id,
    timestamp: at,
    toolName: "echo",
    toolType: "fixture",
    kind: "tool",
    namespace: "",
    principal: "ops",
    ...extra,
  }) as ToolCallEvent;
const completed = (id: string, at: number, duration: number): ToolCallEvent => ({
  type: "completed",
  eventId: id,
  timestamp: at,
  toolName: "echo",
  toolType: "fixture",
  kind: "tool",
  namespace: "",
  principal: "ops",
  isError: false,
  duration,
});
const failed = (
  id: string,
  at: number,
  duration: number,
  extra: Partial<ToolCallEvent> = {},
): ToolCallEvent =>
  ({
    type: "failed",
    eventId: id,
    timestamp: at,
    toolName: "echo",
    toolType: "fixture",
    kind: "tool",
    namespace: "",
    principal: "ops",
    isError: true,
    duration,
    errorCategory: "service_unavailable",
    errorMessage: "The capability service 'fixture' is down",
    ...extra,
  }) as ToolCallEvent;

describe("the call log of the live tail", () => {
  it("makes one row per call: running when started, then ok or failed with its duration", () => {
    let rows = addCallEvent([], started("a", 1000));
    expect(rows).toEqual([expect.objectContaining({ eventId: "a", outcome: "running", principal: "ops" })]);
    rows = addCallEvent(rows, completed("a", 1040, 40));
    expect(rows).toEqual([expect.objectContaining({ eventId: "a", outcome: "ok", durationMs: 40 })]);
    rows = addCallEvent(rows, started("b", 2000));
    rows = addCallEvent(rows, failed("b", 2100, 100));
    expect(rows.map((r) => [r.eventId, r.outcome])).toEqual([
      ["b", "error"],
      ["a", "ok"],
    ]);
    expect(rows[0]?.error).toBe("The capability service 'fixture' is down");
  });

  it("adds a row for a terminal event whose start it never saw, dated back by its duration", () => {
    const rows = addCallEvent([], completed("late", 5000, 300));
    expect(rows[0]).toMatchObject({ eventId: "late", outcome: "ok", startedAt: 4700 });
  });

  it("ignores an event it already has (a resumed stream repeating history)", () => {
    const once = addCallEvent(addCallEvent([], started("a", 1)), completed("a", 2, 1));
    const again = addCallEvent(once, started("a", 1));
    expect(again).toEqual(once);
  });

  it("keeps the newest calls first and at most `max` of them", () => {
    const events = [3, 1, 2, 5, 4].map((n) => started(`e${n}`, n * 10));
    const rows = callsFromEvents(events, 3);
    expect(rows.map((r) => r.eventId)).toEqual(["e5", "e4", "e3"]);
    let bounded = rows;
    for (let i = 0; i < 10; i++) bounded = addCallEvent(bounded, started(`n${i}`, 100 + i), 4);
    expect(bounded).toHaveLength(4);
    expect(bounded[0]?.eventId).toBe("n9");
  });

  it("filters by namespace (the default one as `(default)`), tool and principal by part, and outcome", () => {
    const rows = callsFromEvents([
      started("a", 1, { namespace: "", toolName: "weather_now", principal: "alice" }),
      started("b", 2, { namespace: "dev", toolName: "echo", principal: "bob" }),
      failed("b", 3, 1, { namespace: "dev", toolName: "echo", principal: "bob" }),
    ]);
    const ids = (filter: typeof NO_FILTER) =>
      rows.filter((r) => matchesFilter(r, filter)).map((r) => r.eventId);
    expect(ids(NO_FILTER)).toEqual(["b", "a"]);
    expect(ids({ ...NO_FILTER, namespace: "(default)" })).toEqual(["a"]);
    expect(ids({ ...NO_FILTER, namespace: "dev" })).toEqual(["b"]);
    expect(ids({ ...NO_FILTER, tool: "WEATHER" })).toEqual(["a"]);
    expect(ids({ ...NO_FILTER, principal: "bo" })).toEqual(["b"]);
    expect(ids({ ...NO_FILTER, outcome: "error" })).toEqual(["b"]);
    expect(ids({ ...NO_FILTER, outcome: "running" })).toEqual(["a"]);
    expect(ids({ ...NO_FILTER, outcome: "ok" })).toEqual([]);
  });

  it("summarizes calls, failures and the median and slowest durations", () => {
    const rows = callsFromEvents([
      completed("a", 10, 10),
      completed("b", 30, 30),
      failed("c", 300, 200),
      started("d", 400),
    ]);
    expect(summarize(rows)).toEqual({ calls: 4, failed: 1, running: 1, medianMs: 30, slowestMs: 200 });
    expect(summarize([])).toEqual({ calls: 0, failed: 0, running: 0 });
  });
});
