import type { ToolCallEvent } from "@trestle/core/events";
import { describe, expect, it, vi } from "vitest";
import { boundEventSizeMeasured } from "../src/event-size.js";
import { boundEventSize, createEventHub } from "../src/index.js";
import { garbageCollector, jsonSize, startedEvent } from "./support/events.js";

describe("boundEventSize", () => {
  it("leaves an event under the bound as it is (the same object)", () => {
    const event = startedEvent({ arguments: { city: "Oslo" } });
    expect(boundEventSize(event, 16_384)).toBe(event);
  });

  it("cuts a 1 MiB argument to fit, keeps its beginning and marks how many bytes went", () => {
    const data = "x".repeat(1024 * 1024);
    const event = startedEvent({ arguments: { data, small: "kept" } });
    const bounded = boundEventSize(event, 16_384) as ToolCallEvent & { arguments: Record<string, string> };
    expect(jsonSize(bounded)).toBeLessThanOrEqual(16_384);
    const match = /^(x+)…\[truncated (\d+) bytes\]$/.exec(bounded.arguments.data as string);
    expect(match).not.toBeNull();
    expect((match?.[1]?.length ?? 0) + Number(match?.[2])).toBe(data.length);
    expect(bounded.arguments.small).toBe("kept");
    // Identity and outcome stay whole; the input is not changed.
    expect(bounded.eventId).toBe("e1");
    expect(bounded.toolName).toBe("upload");
    expect((event as unknown as { arguments: { data: string } }).arguments.data).toBe(data);
  });

  it("counts the cut in UTF-8 bytes and never splits a surrogate pair", () => {
    const text = "😀".repeat(20_000);
    const bounded = boundEventSize(startedEvent({ arguments: { text } }), 4_096) as unknown as {
      arguments: { text: string };
    };
    const [kept, marker] = bounded.arguments.text.split("…");
    expect(Buffer.from(kept as string, "utf8").toString("utf8")).toBe(kept);
    expect(kept?.endsWith("\ufffd")).toBe(false);
    const cutBytes = Number(/(\d+) bytes/.exec(marker as string)?.[1]);
    expect(Buffer.byteLength(kept as string) + cutBytes).toBe(Buffer.byteLength(text));
    expect(jsonSize(bounded)).toBeLessThanOrEqual(4_096);
  });

  it("cuts results (content) and error messages too", () => {
    const completed = {
      type: "failed",
      eventId: "e2",
      timestamp: 1,
      toolName: "t",
      toolType: "x",
      kind: "tool",
      isError: true,
      duration: 3,
      content: ["y".repeat(100_000), "z".repeat(100_000)],
      errorCategory: "internal",
      errorMessage: "e".repeat(100_000),
    } as unknown as ToolCallEvent;
    const bounded = boundEventSize(completed, 8_192) as unknown as {
      content: string[];
      errorMessage: string;
      errorCategory: string;
    };
    expect(jsonSize(bounded)).toBeLessThanOrEqual(8_192);
    expect(bounded.content).toHaveLength(2);
    for (const text of [...bounded.content, bounded.errorMessage])
      expect(text).toMatch(/…\[truncated \d+ bytes\]$/);
    expect(bounded.errorCategory).toBe("internal");
  });

  it("replaces a payload of many small parts whole, keeping its type", () => {
    const many = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const bounded = boundEventSize(
      startedEvent({ arguments: many, content: undefined }),
      16_384,
    ) as unknown as {
      arguments: Record<string, string>;
    };
    expect(jsonSize(bounded)).toBeLessThanOrEqual(16_384);
    expect(Object.values(bounded.arguments)).toEqual([expect.stringMatching(/^…\[truncated \d+ bytes\]$/)]);
  });

  it("replaces nesting too deep to be worth recording", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 40; i++) deep = { d: deep, pad: "p".repeat(1_000) };
    const bounded = boundEventSize(startedEvent({ arguments: { deep } }), 16_384);
    expect(jsonSize(bounded)).toBeLessThanOrEqual(16_384);
    expect(JSON.stringify(bounded)).toContain("…[truncated");
  });
});

describe("boundEventSizeMeasured", () => {
  it("gives the bounded event's JSON and its exact size, for strings over the bound with escapes and non-ASCII", () => {
    // Its strings alone are over the bound, so the whole event is never serialised; escapes ("\n", '"') make its
    // JSON larger than its strings' bytes, which the check after the cut catches.
    const text = 'line "quoted"\n\tæøå ✓ '.repeat(2_000);
    const event = startedEvent({ arguments: { text, other: "kept" }, headers: { accept: "x".repeat(40) } });
    const measured = boundEventSizeMeasured(event, 16_384);
    const json = measured.encode().toString();
    // The same event to a JSON reader; the marker's "…" is written as an escape.
    expect(JSON.parse(json)).toEqual(measured.event);
    expect(measured.encode().toString()).toContain("\\u2026[truncated ");
    expect(measured.bytes).toBe(measured.encode().length);
    expect(measured.bytes).toBeLessThanOrEqual(16_384);
    const args = (measured.event as ToolCallEvent & { arguments: Record<string, string> }).arguments;
    expect(args.other).toBe("kept");
    expect(args.text?.startsWith('line "quoted"\n\tæøå ✓ ')).toBe(true);
    expect(args.text).toMatch(/…\[truncated \d+ bytes\]$/);
    expect((event as ToolCallEvent & { arguments: unknown }).arguments).toEqual({ text, other: "kept" });
  });

  it("cuts an ASCII string by index: its beginning kept to the byte budget, the rest counted in the marker", () => {
    const data = "abcdefghij".repeat(5_000);
    const bounded = boundEventSizeMeasured(startedEvent({ arguments: { data } }), 4_096);
    const cut = (bounded.event as ToolCallEvent & { arguments: { data: string } }).arguments.data;
    const [kept = "", marker = ""] = cut.split("…");
    expect(data.startsWith(kept)).toBe(true);
    expect(marker).toBe(`[truncated ${50_000 - kept.length} bytes]`);
    // The budget is spent: no more than a marker's length below the bound.
    expect(bounded.bytes).toBeLessThanOrEqual(4_096);
    expect(bounded.bytes).toBeGreaterThan(4_096 - 40);
  });

  it("writes a cut ASCII event's JSON in ASCII: the marker's '…' escaped, the same event when parsed", () => {
    const event = startedEvent({ arguments: { data: "x".repeat(50_000), deep: nested(20), note: "short" } });
    const bounded = boundEventSizeMeasured(event, 4_096);
    // Every character under 0x80: V8 keeps the JSON one byte a character, and encodes it to bytes by copying.
    const json = bounded.encode().toString("latin1");
    expect(/^[\x20-\x7e]*$/.test(json)).toBe(true);
    expect(bounded.bytes).toBe(json.length);
    const parsed = JSON.parse(json) as ToolCallEvent;
    expect(parsed).toEqual(bounded.event);
    const args = (parsed as ToolCallEvent & { arguments: Record<string, unknown> }).arguments;
    expect(args.data).toMatch(/^x+…\[truncated \d+ bytes\]$/);
    expect(JSON.stringify(args.deep)).toMatch(/"…\[truncated \d+ bytes\]"/);
    expect(args.note).toBe("short");
  });

  it("keeps a payload's own control characters and marker-like text as they were", () => {
    // The text the serialiser stands in for a marker, inside the payload itself: it must come back unchanged.
    const lookalike = "\u0001[truncated 5 bytes] and \u0001 alone, and as text: \\u0001[truncated ";
    const event = startedEvent({ arguments: { data: "y".repeat(50_000), lookalike } });
    const bounded = boundEventSizeMeasured(event, 4_096);
    const bytes = bounded.encode();
    const parsed = JSON.parse(bytes.toString()) as ToolCallEvent & { arguments: Record<string, string> };
    expect(parsed.arguments.lookalike).toBe(lookalike);
    expect(parsed.arguments.data).toMatch(/^y+…\[truncated \d+ bytes\]$/);
    expect(parsed).toEqual(bounded.event);
    expect(bounded.bytes).toBe(bytes.length);
    expect(bounded.bytes).toBeLessThanOrEqual(4_096);
  });

  it("gives a cut event's ids, names and type without parsing its JSON; its payload parsed once, when read", () => {
    const event = startedEvent({ arguments: { data: "x".repeat(50_000) }, headers: { accept: "y" } });
    const bounded = boundEventSizeMeasured(event, 4_096);
    const parse = vi.spyOn(JSON, "parse");
    try {
      const read = bounded.event as ToolCallEvent & { arguments: { data: string }; headers: unknown };
      // What the SSE route and a filter read: nothing parsed for it.
      expect([read.type, read.eventId, read.toolName, read.timestamp]).toEqual([
        "started",
        "e1",
        "upload",
        1,
      ]);
      expect(parse).not.toHaveBeenCalled();
      expect(read.arguments.data).toMatch(/^x+…\[truncated \d+ bytes\]$/);
      expect(read.headers).toEqual({ accept: "y" });
      expect(read.arguments).toBe(read.arguments);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
    // The event its JSON is, field for field and in the same order.
    expect(JSON.stringify(bounded.event)).toBe(JSON.stringify(JSON.parse(bounded.json)));
    expect(Object.keys(bounded.event)).toEqual(Object.keys(event));
  });

  it("lets a reader replace a cut event's payload field, before or after reading it", () => {
    const event = startedEvent({ arguments: { data: "x".repeat(50_000) }, headers: { accept: "y" } });
    const read = boundEventSizeMeasured(event, 4_096).event as ToolCallEvent & Record<string, unknown>;
    read.arguments = { data: "replaced" };
    void read.headers;
    read.headers = {};
    expect(read.arguments).toEqual({ data: "replaced" });
    expect(read.headers).toEqual({});
    expect(Object.keys(read)).toEqual(Object.keys(event));
  });

  it("keeps no payload it cut, whether its event was read or not", () => {
    const collect = garbageCollector();
    collect();
    const heapBefore = process.memoryUsage().heapUsed;
    const kept: ToolCallEvent[] = [];
    for (let i = 0; i < 32; i++) {
      const payload = `${i}`.padEnd(1 << 20, "x");
      const bounded = boundEventSizeMeasured(startedEvent({ arguments: { data: payload } }, `e${i}`), 16_384);
      // Half read whole, half only by their ids (as the SSE route reads them).
      const event = bounded.event as ToolCallEvent & { arguments: { data: string } };
      if (i % 2 === 0) expect(event.arguments.data.startsWith(`${i}x`)).toBe(true);
      else expect(event.eventId).toBe(`e${i}`);
      kept.push(event);
    }
    collect();
    // 32 MiB of payloads went by; what stays is about 32 × 16 KiB of events.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(4 * 1024 * 1024);
    expect(kept).toHaveLength(32);
  });

  it("marks a cut right after a backslash, which JSON writes as two", () => {
    const event = startedEvent({ arguments: { data: "\\".repeat(50_000) } });
    const bounded = boundEventSizeMeasured(event, 4_096);
    const parsed = JSON.parse(bounded.encode().toString()) as ToolCallEvent & { arguments: { data: string } };
    expect(parsed.arguments.data).toMatch(/^\\+…\[truncated \d+ bytes\]$/);
    expect(parsed).toEqual(bounded.event);
    expect(bounded.bytes).toBeLessThanOrEqual(4_096);
  });
});

/** An object nested `depth` levels deep, a string at the bottom. */
function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = { level: value };
  return value;
}

describe("event hub bounds", () => {
  it("stores and delivers bounded events", () => {
    const hub = createEventHub({ eventMaxBytes: 4_096 });
    const seen: ToolCallEvent[] = [];
    hub.subscribe((e) => void seen.push(e));
    hub.emit(startedEvent({ arguments: { data: "x".repeat(100_000) } }));
    expect(jsonSize(hub.history()[0])).toBeLessThanOrEqual(4_096);
    expect(jsonSize(seen[0])).toBeLessThanOrEqual(4_096);
  });

  it("keeps the history within its byte budget, dropping the oldest first", () => {
    const hub = createEventHub({ historySize: 10_000, historyMaxBytes: 64 * 1024, eventMaxBytes: 16 * 1024 });
    for (let i = 0; i < 100; i++)
      hub.emit(startedEvent({ arguments: { data: "x".repeat(15_000) } }, `e${i}`));
    const history = hub.history();
    const total = history.reduce((sum, e) => sum + jsonSize(e), 0);
    expect(total).toBeLessThanOrEqual(64 * 1024);
    expect(history.length).toBeGreaterThan(0);
    expect(history.at(-1)?.eventId).toBe("e99");
    // Small events are not limited by the byte budget below the count.
    const small = createEventHub({ historySize: 50, historyMaxBytes: 64 * 1024 });
    for (let i = 0; i < 60; i++) small.emit(startedEvent({}, `s${i}`));
    expect(small.history()).toHaveLength(50);
  });

  it("holds no payload string a cut event was cut from, kept as an object or handed to a subscriber", () => {
    const collect = garbageCollector();
    // 1 KiB events are kept as objects (under the history's 2 KiB for bytes); the subscriber holds every one too.
    const hub = createEventHub({ eventMaxBytes: 1_024 });
    const seen: ToolCallEvent[] = [];
    hub.subscribe((e) => void seen.push(e), { bufferSize: 1_000 });
    collect();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 64; i++)
      hub.emit(startedEvent({ arguments: { data: `${i}`.padEnd(1 << 20, "x") } }, `e${i}`));
    collect();
    const held = process.memoryUsage().heapUsed - before;
    expect(seen).toHaveLength(64);
    expect(hub.history()).toHaveLength(64);
    expect((seen[5] as ToolCallEvent & { arguments: { data: string } }).arguments.data).toMatch(
      /^5x+…\[truncated \d+ bytes\]$/,
    );
    // 64 MiB of payloads went by; what stays is about 64 KiB of events.
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });
});
