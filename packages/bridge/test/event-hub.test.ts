import type { DeferredToolCallEvents, ToolCallEvent } from "@trestle/core/events";
import { describe, expect, it } from "vitest";
import { createEventHub } from "../src/index.js";

let seq = 0;
function event(extra: Partial<ToolCallEvent> = {}): ToolCallEvent {
  seq++;
  return {
    type: "started",
    eventId: `e${seq}`,
    timestamp: seq,
    toolName: "forecast",
    toolType: "weather",
    kind: "tool",
    arguments: {},
    headers: {},
    ...extra,
  } as ToolCallEvent;
}

/** A call whose only event (step 0) `build` makes. */
function deferred(build: () => ToolCallEvent): DeferredToolCallEvents {
  return { buildEvent: () => build() };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("fan-out", () => {
  it("delivers every event to every subscriber, in order", async () => {
    const hub = createEventHub();
    const a: string[] = [];
    const b: string[] = [];
    hub.subscribe((e) => void a.push(e.eventId));
    hub.subscribe((e) => void b.push(e.eventId));
    const first = event();
    const second = event();
    hub.emit(first);
    hub.emit(second);
    expect(a).toEqual([first.eventId, second.eventId]);
    expect(b).toEqual(a);
  });

  it("never throws from emit: a throwing or rejecting listener keeps its subscription and harms no other", async () => {
    const hub = createEventHub();
    const seen: string[] = [];
    const others: string[] = [];
    hub.subscribe((e) => {
      seen.push(e.eventId);
      throw new Error("listener bug");
    });
    const rejected: string[] = [];
    hub.subscribe(async (e) => {
      rejected.push(e.eventId);
      throw new Error("async listener bug");
    });
    hub.subscribe((e) => void others.push(e.eventId));
    expect(() => hub.emit(event())).not.toThrow();
    expect(() => hub.emit(event())).not.toThrow();
    await tick();
    expect(seen).toHaveLength(2);
    expect(rejected).toHaveLength(2);
    expect(others).toHaveLength(2);
  });

  it("a slow subscriber loses its oldest events, counts them, and never slows the others", async () => {
    const hub = createEventHub({ subscriberBuffer: 2 });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: string[] = [];
    const fast: string[] = [];
    const slowSubscription = hub.subscribe(async (e) => {
      slow.push(e.eventId);
      await gate;
    });
    const fastSubscription = hub.subscribe((e) => void fast.push(e.eventId));
    const events = Array.from({ length: 5 }, () => event());
    hub.emit(events[0] as ToolCallEvent);
    await tick();
    expect(slow).toEqual([events[0]?.eventId]);
    for (const e of events.slice(1)) hub.emit(e);
    await tick();
    expect(fast).toEqual(events.map((e) => e.eventId));
    expect(slowSubscription.dropped).toBe(2);
    expect(fastSubscription.dropped).toBe(0);
    release();
    await tick();
    expect(slow).toEqual([events[0], events[3], events[4]].map((e) => e?.eventId));
  });

  it("stops delivering after unsubscribe", async () => {
    const hub = createEventHub();
    const seen: string[] = [];
    const subscription = hub.subscribe((e) => void seen.push(e.eventId));
    hub.emit(event());
    await tick();
    subscription.unsubscribe();
    hub.emit(event());
    await tick();
    expect(seen).toHaveLength(1);
  });

  it("delivers only what a subscriber's filter accepts", async () => {
    const hub = createEventHub();
    const seen: string[] = [];
    hub.subscribe((e) => void seen.push(e.type), { filter: (e) => e.type !== "started" });
    hub.emit(event());
    hub.emit(event({ type: "completed", isError: false, content: [], duration: 1 }));
    await tick();
    expect(seen).toEqual(["completed"]);
  });

  it("gives each subscriber the event's JSON with it, cut events' markers included, and to a slow one later", async () => {
    const hub = createEventHub({ eventMaxBytes: 1024 });
    const now: [ToolCallEvent, string][] = [];
    const later: [ToolCallEvent, string][] = [];
    hub.subscribe((e, json) => void now.push([e, json]));
    hub.subscribe(async (e, json) => {
      await tick();
      later.push([e, json]);
    });
    hub.emit(event({ arguments: { text: "short" } }));
    hub.emit(event({ arguments: { text: "x".repeat(4096) } }));
    await tick();
    await tick();
    expect(later).toHaveLength(2);
    for (const [e, json] of [...now, ...later]) expect(JSON.parse(json)).toEqual(e);
    const [cut, cutJson] = now[1] as [ToolCallEvent, string];
    expect(Buffer.byteLength(cutJson)).toBeLessThanOrEqual(1024);
    expect((cut as { arguments: Record<string, string> }).arguments.text).toMatch(
      /^x+…\[truncated \d+ bytes\]$/,
    );
    expect(later[1]?.[1]).toBe(cutJson);
  });
});

describe("stream", () => {
  it("yields events as they are emitted and ends when its signal aborts", async () => {
    const hub = createEventHub();
    const controller = new AbortController();
    const stream = hub.stream({ signal: controller.signal });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const e of stream) {
        seen.push(e.eventId);
        if (seen.length === 2) controller.abort();
      }
    })();
    const emitted = [event(), event(), event()];
    for (const e of emitted) hub.emit(e);
    await reading;
    expect(seen).toEqual([emitted[0]?.eventId, emitted[1]?.eventId]);
  });

  it("buffers for a slow reader up to its size, dropping the oldest and counting them", async () => {
    const hub = createEventHub();
    const stream = hub.stream({ bufferSize: 3 });
    const emitted = Array.from({ length: 5 }, () => event());
    for (const e of emitted) hub.emit(e);
    expect(stream.dropped).toBe(2);
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.eventId);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(emitted.slice(2).map((e) => e.eventId));
  });

  it("ends at once when its signal is already aborted", async () => {
    const hub = createEventHub();
    const seen: ToolCallEvent[] = [];
    for await (const e of hub.stream({ signal: AbortSignal.abort() })) seen.push(e);
    hub.emit(event());
    expect(seen).toEqual([]);
  });

  it("stops receiving when the reader leaves the loop", async () => {
    const hub = createEventHub();
    const stream = hub.stream({ bufferSize: 1 });
    hub.emit(event());
    for await (const _ of stream) break;
    hub.emit(event());
    hub.emit(event());
    expect(stream.dropped).toBe(0);
  });
});

describe("history", () => {
  it("keeps the most recent events up to its size, oldest first", () => {
    const hub = createEventHub({ historySize: 3 });
    const emitted = Array.from({ length: 5 }, () => event());
    for (const e of emitted) hub.emit(e);
    expect(hub.history()).toEqual(emitted.slice(2));
  });

  it("keeps the right events, in order, across many more calls than its size (built ones and deferred ones)", () => {
    const hub = createEventHub({ historySize: 100 });
    const emitted: ToolCallEvent[] = [];
    for (let i = 0; i < 1_037; i++) {
      const e = event({ requestId: String(i) });
      emitted.push(e);
      if (i % 3 === 0)
        hub.emitLater?.(
          deferred(() => e),
          0,
          64,
        );
      else hub.emit(e);
      const history = hub.history();
      expect(history).toHaveLength(Math.min(i + 1, 100));
      expect(history[0]).toBe(emitted[Math.max(0, i - 99)]);
      expect(history.at(-1)).toBe(e);
    }
    expect(hub.history()).toEqual(emitted.slice(-100));
    expect(hub.history({ limit: 2 })).toEqual(emitted.slice(-2));
  });

  it("builds each kept event of a call from its step, in order, when first read after many more calls than its size", () => {
    const hub = createEventHub({ historySize: 50, historyMaxBytes: 1_000_000 });
    const offered: string[] = [];
    // Calls overlap, as they do under load: each offers STARTED (step 0) now and its end (step 1) two calls later.
    const calls = Array.from({ length: 90 }, (_, n) => ({
      buildEvent: (step: number) => event({ requestId: `${n}:${step}` }),
    }));
    for (let n = 0; n < calls.length + 2; n++) {
      if (n < calls.length) {
        hub.emitLater?.(calls[n] as DeferredToolCallEvents, 0, 100);
        offered.push(`${n}:0`);
      }
      if (n >= 2) {
        hub.emitLater?.(calls[n - 2] as DeferredToolCallEvents, 1, 100);
        offered.push(`${n - 2}:1`);
      }
    }
    expect(hub.history().map((e) => e.requestId)).toEqual(offered.slice(-50));
    // Built once: a second read returns the same events.
    const [first] = hub.history();
    expect(hub.history()[0]).toBe(first);
  });

  it("drops the oldest entries for their bytes, built or not, and counts a built event's own size", () => {
    const hub = createEventHub({ historyMaxBytes: 1_000 });
    for (let i = 0; i < 20; i++) hub.emitLater?.(deferred(event), 0, 300);
    expect(hub.history()).toHaveLength(3);
    // Read once, each entry counts its event's size as JSON (about 130 bytes here), no longer the estimate.
    for (let i = 0; i < 4; i++) hub.emit(event());
    expect(hub.history()).toHaveLength(7);
  });

  it("forgets events older than its maximum age", () => {
    let now = 0;
    const hub = createEventHub({ historyMaxAgeMs: 1_000, clock: () => now });
    const old = event();
    hub.emit(old);
    now = 600;
    const recent = event();
    hub.emit(recent);
    now = 1_500;
    expect(hub.history()).toEqual([recent]);
    now = 1_601;
    expect(hub.history()).toEqual([]);
  });

  it("filters by tool name, type and namespace, and limits to the most recent", () => {
    const hub = createEventHub();
    const a = event({ toolName: "a", namespace: "x" });
    const b = event({ toolName: "b" });
    const c = event({
      toolName: "a",
      type: "completed",
      isError: false,
      content: [],
      duration: 1,
    } as Partial<ToolCallEvent>);
    for (const e of [a, b, c]) hub.emit(e);
    expect(hub.history({ toolName: "a" })).toEqual([a, c]);
    expect(hub.history({ type: "completed" })).toEqual([c]);
    expect(hub.history({ namespace: "x" })).toEqual([a]);
    expect(hub.history({ limit: 2 })).toEqual([b, c]);
    expect(hub.history({ limit: 0 })).toEqual([]);
  });

  it("keeps nothing when its size is 0, yet still fans out", async () => {
    const hub = createEventHub({ historySize: 0 });
    const seen: ToolCallEvent[] = [];
    hub.subscribe((e) => void seen.push(e));
    hub.emit(event());
    await tick();
    expect(hub.history()).toEqual([]);
    expect(seen).toHaveLength(1);
  });
});

describe("wantsEvents", () => {
  it("is true while a history is kept or a subscriber listens, false otherwise", () => {
    expect(createEventHub().wantsEvents?.()).toBe(true);
    const hub = createEventHub({ historySize: 0 });
    expect(hub.wantsEvents?.()).toBe(false);
    const subscription = hub.subscribe(() => undefined);
    expect(hub.wantsEvents?.()).toBe(true);
    subscription.unsubscribe();
    expect(hub.wantsEvents?.()).toBe(false);
  });

  it("keeps in the history the size of each event as it measured it once, bounding the history's bytes", () => {
    const big = "x".repeat(4_000);
    const hub = createEventHub({ historyMaxBytes: 10_000 });
    for (let i = 0; i < 5; i++) hub.emit(event({ arguments: { big } }));
    // Each event is a little over 4,000 bytes as JSON: two fit in 10,000 bytes, three do not.
    expect(hub.history()).toHaveLength(2);
  });
});

describe("emitLater", () => {
  it("builds a kept event only when the history is read, once, bounded like an emitted one", () => {
    const hub = createEventHub({ eventMaxBytes: 2_000 });
    let builds = 0;
    const kept = event({ arguments: { text: "y".repeat(5_000) } });
    expect(
      hub.emitLater?.(
        deferred(() => {
          builds++;
          return kept;
        }),
        0,
        100,
      ),
    ).toBe(true);
    expect(builds).toBe(0);
    const [first] = hub.history();
    expect(builds).toBe(1);
    expect(first?.eventId).toBe(kept.eventId);
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(2_100);
    expect(JSON.stringify(first)).toContain("[truncated");
    hub.history();
    expect(builds).toBe(1);
  });

  it("keeps emitted and later-built events in the order they came", () => {
    const hub = createEventHub();
    const a = event();
    const b = event();
    const c = event();
    hub.emitLater?.(
      deferred(() => a),
      0,
      10,
    );
    hub.emit(b);
    hub.emitLater?.(
      deferred(() => c),
      0,
      10,
    );
    expect(hub.history().map((e) => e.eventId)).toEqual([a.eventId, b.eventId, c.eventId]);
  });

  it("asks for the event now while a subscriber listens, or when the call holds more than an event may", () => {
    const hub = createEventHub({ eventMaxBytes: 1_000 });
    expect(hub.emitLater?.(deferred(event), 0, 5_000)).toBe(false);
    const subscription = hub.subscribe(() => undefined);
    expect(hub.emitLater?.(deferred(event), 0, 10)).toBe(false);
    subscription.unsubscribe();
    expect(hub.emitLater?.(deferred(event), 0, 10)).toBe(true);
  });

  it("never builds what no history keeps, and bounds the history by the estimates until read", () => {
    const none = createEventHub({ historySize: 0 });
    let built = false;
    expect(
      none.emitLater?.(
        deferred(() => {
          built = true;
          return event();
        }),
        0,
        10,
      ),
    ).toBe(true);
    expect(none.history()).toEqual([]);
    expect(built).toBe(false);

    const small = createEventHub({ historyMaxBytes: 10_000 });
    for (let i = 0; i < 5; i++) small.emitLater?.(deferred(event), 0, 4_000);
    expect(small.history()).toHaveLength(2);
  });

  it("leaves out an event whose build throws, and never throws itself", () => {
    const hub = createEventHub();
    const good = event();
    hub.emitLater?.(
      deferred(() => {
        throw new Error("broken");
      }),
      0,
      10,
    );
    hub.emitLater?.(
      deferred(() => good),
      0,
      10,
    );
    expect(hub.history().map((e) => e.eventId)).toEqual([good.eventId]);
  });
});

describe("large events in the history", () => {
  it("keeps a large event as its JSON's bytes, outside the JavaScript heap, and parses it on each read", () => {
    const hub = createEventHub({ historySize: 200, historyMaxBytes: 64 * 1024 * 1024 });
    const before = process.memoryUsage().arrayBuffers;
    const emitted: ToolCallEvent[] = [];
    for (let i = 0; i < 200; i++) {
      const large = event({ arguments: { text: `${i}:${"z".repeat(8_000)}` } });
      emitted.push(large);
      hub.emit(large);
    }
    // 200 events of about 8 KB each: 1.6 MB held as buffers (none before this change).
    expect(process.memoryUsage().arrayBuffers - before).toBeGreaterThan(1_500_000);
    const history = hub.history();
    expect(history).toEqual(emitted);
    // A new object each read: what the reader keeps is the reader's, the history keeps bytes.
    expect(hub.history()[0]).not.toBe(history[0]);
    expect(hub.history()[0]).toEqual(history[0]);
  });

  it("builds only the entries a limit returns when nothing else filters", () => {
    const hub = createEventHub();
    const built: number[] = [];
    for (let n = 0; n < 10; n++)
      hub.emitLater?.(
        deferred(() => {
          built.push(n);
          return event({ requestId: String(n) });
        }),
        0,
        100,
      );
    expect(hub.history({ limit: 3 }).map((e) => e.requestId)).toEqual(["7", "8", "9"]);
    expect(built).toEqual([7, 8, 9]);
    expect(hub.history({ limit: 0 })).toEqual([]);
    expect(hub.history({ limit: 5, toolName: "forecast" }).map((e) => e.requestId)).toEqual([
      "5",
      "6",
      "7",
      "8",
      "9",
    ]);
    // A filter other than the limit reads every entry.
    expect(built).toEqual([7, 8, 9, 0, 1, 2, 3, 4, 5, 6]);
    expect(hub.history().map((e) => e.requestId)).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
  });

  it("keeps a small event itself", () => {
    const hub = createEventHub();
    const small = event({ arguments: { text: "short" } });
    hub.emit(small);
    expect(hub.history()[0]).toBe(small);
  });

  it("keeps a large event built on first read as bytes too, and counts its size the same", () => {
    const hub = createEventHub({ historyMaxBytes: 30_000 });
    const large = event({ arguments: { text: "q".repeat(9_000) } });
    for (let i = 0; i < 5; i++)
      hub.emitLater?.(
        deferred(() => large),
        0,
        100,
      );
    // Estimated at 100 bytes each until read; built by the first read, each counts its 9 KB: three fit in 30,000.
    expect(hub.history()).toHaveLength(5);
    expect(hub.history()).toHaveLength(3);
    expect(hub.history()).toEqual([large, large, large]);
    expect(hub.history()[0]).not.toBe(large);
  });
});
