import { describe, expect, it } from "vitest";
import { createSseParser } from "../src/sse-parser.js";

describe("createSseParser", () => {
  it("yields events split across chunks, with their names and ids, and skips comments", () => {
    const parser = createSseParser();
    expect(parser.push('event: message\nid: 1\ndata: {"a"\n')).toEqual([]);
    expect(parser.push(":comment\ndata: :1}\n\ndata: two\r\n\r\n")).toEqual([
      { event: "message", id: "1", data: '{"a"\n:1}' },
      { event: "message", data: "two" },
    ]);
    expect(parser.push("event: ping\ndata:x\n\n")).toEqual([{ event: "ping", data: "x" }]);
  });

  it("reads a CRLF split between two chunks as one line end", () => {
    const parser = createSseParser();
    expect(parser.push("data: a\r")).toEqual([]);
    expect(parser.push("\n\r\ndata: b\n\n")).toEqual([
      { event: "message", data: "a" },
      { event: "message", data: "b" },
    ]);
  });

  it("yields nothing for an event without data (a priming event with an id only)", () => {
    const parser = createSseParser();
    expect(parser.push("id: 42\n\n")).toEqual([]);
  });

  it("reads a large stream fed in small chunks, in order", () => {
    const parser = createSseParser();
    const body = Array.from(
      { length: 2_000 },
      (_, i) => `event: n\ndata: ${i}\ndata: ${"x".repeat(100)}\n\n`,
    ).join("");
    const events = [];
    for (let at = 0; at < body.length; at += 37) events.push(...parser.push(body.slice(at, at + 37)));
    expect(events).toHaveLength(2_000);
    expect(events[1_999]).toEqual({ event: "n", data: `1999\n${"x".repeat(100)}` });
  });
});
