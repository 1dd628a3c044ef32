import { describe, expect, it } from "vitest";
import { createSseParser } from "../src/sse-parser.js";

describe("createSseParser", () => {
  it("yields events split across chunks, with their names, and skips ids and comments", () => {
    const parser = createSseParser();
    expect(parser.push('event: message\nid: 1\ndata: {"a"\n')).toEqual([]);
    expect(parser.push(":comment\ndata: :1}\n\ndata: two\r\n\r\n")).toEqual([
      { event: "message", data: '{"a"\n:1}' },
      { event: "message", data: "two" },
    ]);
    expect(parser.push("event: ping\ndata:x\n\n")).toEqual([{ event: "ping", data: "x" }]);
  });

  it("yields nothing for an event without data (a priming event with an id only)", () => {
    const parser = createSseParser();
    expect(parser.push("id: 42\n\n")).toEqual([]);
  });
});
