import type { ToolCallEvent } from "@trestle/core/events";
import { describe, expect, it } from "vitest";
import { boundEventSizeMeasured } from "../src/event-size.js";
import { createEventHub } from "../src/index.js";
import { boundForHistory, PackedEvent } from "../src/packed-event.js";
import { garbageCollector, jsonSize, startedEvent } from "./support/events.js";

/** Payloads over a 4 KiB bound, of every kind the cut treats differently. */
const payloads: Record<string, Record<string, unknown>> = {
  "one ASCII string": { arguments: { text: "abcdefghij".repeat(5_000) } },
  "a string of 1 MiB beside short ones": {
    arguments: { data: "y".repeat(1 << 20), note: "short", id: "0123456789abcdef" },
  },
  "strings of every length in an array": {
    arguments: { parts: Array.from({ length: 40 }, (_, i) => "p".repeat(i * 37)) },
  },
  "non-ASCII with surrogate pairs": { arguments: { text: "æ😀✓".repeat(3_000) } },
  "JSON text, its quotes escaped": {
    content: [JSON.stringify(Array.from({ length: 800 }, (_, i) => ({ id: i, name: `item "${i}"` })))],
    type: "completed",
    isError: false,
    duration: 3,
  },
  "control characters, six bytes each as JSON": { arguments: { data: "\u0001\u0002".repeat(4_000) } },
  "backslashes, two bytes each as JSON": { arguments: { data: "\\".repeat(20_000) } },
  "many small parts": {
    arguments: Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, "value"])),
  },
  "nesting too deep": { arguments: { deep: nested(20, "z".repeat(20_000)), also: "w".repeat(10_000) } },
  "a body and code": { body: "b".repeat(9_000), code: "c".repeat(9_000) },
  "a lone surrogate, which UTF-8 cannot carry": { arguments: { text: `start \ud800 ${"é".repeat(3_000)}` } },
};

describe("a history nobody subscribes to", () => {
  it.each(Object.entries(payloads))("keeps %s cut exactly as a subscriber gets it", (_, extra) => {
    const event = startedEvent(extra);
    const quiet = createEventHub({ eventMaxBytes: 4_096 });
    const watched = createEventHub({ eventMaxBytes: 4_096 });
    const seen: ToolCallEvent[] = [];
    watched.subscribe((e) => void seen.push(e));
    quiet.emit(event);
    watched.emit(event);
    const [kept] = quiet.history();
    expect(kept).toEqual(seen[0]);
    expect(kept).toEqual(boundEventSizeMeasured(event, 4_096).event);
    expect(jsonSize(kept)).toBeLessThanOrEqual(4_096);
    // Read again, the same event.
    expect(quiet.history()[0]).toEqual(kept);
  });

  it("packs a large event instead of serialising it, and counts about its bytes as JSON", () => {
    const event = startedEvent({ arguments: { text: "abcdefghij".repeat(5_000) } });
    const packed = boundForHistory(event, 4_096);
    expect(packed).toBeInstanceOf(PackedEvent);
    const exact = boundEventSizeMeasured(event, 4_096);
    // Its estimate is the exact size for an ASCII payload without escapes.
    expect(packed.bytes).toBe(exact.bytes);
    // An event under the bound is measured whole, as before.
    expect(boundForHistory(startedEvent({ arguments: { text: "small" } }), 4_096)).not.toBeInstanceOf(
      PackedEvent,
    );
  });

  it("cuts further on read when escapes take the packed strings over the bound, the marker counting the original", () => {
    const data = '"'.repeat(10_000);
    const packed = boundForHistory(startedEvent({ arguments: { data } }), 4_096) as PackedEvent;
    const read = packed.unpack() as ToolCallEvent & { arguments: { data: string } };
    expect(jsonSize(read)).toBeLessThanOrEqual(4_096);
    const [kept = "", marker = ""] = read.arguments.data.split("…");
    // Each quote is two bytes as JSON: about half the first cut is kept.
    expect(kept.length).toBeLessThan(2_100);
    expect(kept).toMatch(/^"+$/);
    expect(marker).toBe(`[truncated ${10_000 - kept.length} bytes]`);
  });

  it("never ends a cut string inside a character, on packing or when cutting further on read", () => {
    // Four bytes a character, and quotes between them so that the read cuts again.
    const text = '😀"'.repeat(5_000);
    const read = (
      boundForHistory(startedEvent({ arguments: { text } }), 4_096) as PackedEvent
    ).unpack() as ToolCallEvent & {
      arguments: { text: string };
    };
    const [kept = "", marker = ""] = read.arguments.text.split("…");
    // A lone surrogate would not survive UTF-8.
    expect(Buffer.from(kept).toString()).toBe(kept);
    expect(kept).not.toContain("\ufffd");
    expect(text.startsWith(kept)).toBe(true);
    expect(marker).toBe(`[truncated ${Buffer.byteLength(text) - Buffer.byteLength(kept)} bytes]`);
    expect(jsonSize(read)).toBeLessThanOrEqual(4_096);
  });

  it("holds no payload string it was cut from, and about the bound of bytes an event", () => {
    const collect = garbageCollector();
    const hub = createEventHub({ eventMaxBytes: 16 * 1024 });
    collect();
    const heapBefore = process.memoryUsage().heapUsed;
    const buffersBefore = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64; i++) {
      const payload = `${i}`.padEnd(1 << 20, "x");
      // A substring of a payload is a slice of it in V8: keeping the substring would keep the payload.
      hub.emit(startedEvent({ arguments: { data: payload, head: payload.slice(0, 40) } }, `e${i}`));
    }
    collect();
    const heldOnHeap = process.memoryUsage().heapUsed - heapBefore;
    const heldInBuffers = process.memoryUsage().arrayBuffers - buffersBefore;
    const history = hub.history();
    expect(history).toHaveLength(64);
    expect((history[5] as ToolCallEvent & { arguments: { data: string } }).arguments.data).toMatch(
      /^5x+…\[truncated \d+ bytes\]$/,
    );
    // 64 MiB of payloads went by; what stays is about 64 × 16 KiB of events.
    expect(heldOnHeap + heldInBuffers).toBeLessThan(8 * 1024 * 1024);
  });
});

/** `bottom` nested `depth` levels deep. */
function nested(depth: number, bottom: unknown): unknown {
  let value = bottom;
  for (let i = 0; i < depth; i++) value = { level: value };
  return value;
}
