import { describe, expect, it } from "vitest";
import {
  ChannelProtocolError,
  createLineSplitter,
  decodeToolCallRequest,
  decodeToolCallResponse,
  encodeChannelMessage,
  programOutcome,
} from "../src/index.js";

describe("the tool channel's messages", () => {
  it("encodes one message a line, newlines in values escaped", () => {
    const line = encodeChannelMessage({ id: 1, name: "x", arguments: { text: "a\nb\u2028c" } });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(decodeToolCallRequest(line)).toEqual({ id: 1, name: "x", arguments: { text: "a\nb\u2028c" } });
  });

  it("reads requests, defaulting arguments to {}", () => {
    expect(decodeToolCallRequest('{"id":7,"name":"get_weather"}')).toEqual({
      id: 7,
      name: "get_weather",
      arguments: {},
    });
  });

  it("refuses malformed requests, keeping the id when it could be read", () => {
    const failure = (line: string): ChannelProtocolError => {
      try {
        decodeToolCallRequest(line);
      } catch (error) {
        expect(error).toBeInstanceOf(ChannelProtocolError);
        return error as ChannelProtocolError;
      }
      throw new Error("expected a protocol error");
    };
    expect(failure("not json").id).toBeUndefined();
    expect(failure("[1]").id).toBeUndefined();
    expect(failure('{"id":-1,"name":"x"}').id).toBeUndefined();
    expect(failure('{"id":1.5,"name":"x"}').id).toBeUndefined();
    expect(failure('{"id":3,"name":""}').id).toBe(3);
    expect(failure(`{"id":3,"name":"${"n".repeat(300)}"}`).rawMessage).toMatch(/1 to 256 characters/);
    expect(failure('{"id":4,"name":"x","arguments":[1]}').id).toBe(4);
  });

  it("reads responses", () => {
    expect(decodeToolCallResponse('{"id":1,"result":{"a":1}}')).toEqual({ id: 1, result: { a: 1 } });
    expect(decodeToolCallResponse('{"id":2,"result":null}')).toEqual({ id: 2, result: null });
    expect(decodeToolCallResponse('{"id":3,"error":{"message":"no"}}')).toEqual({
      id: 3,
      error: { message: "no" },
    });
    expect(() => decodeToolCallResponse('{"result":1}')).toThrow(ChannelProtocolError);
  });
});

describe("createLineSplitter", () => {
  it("joins lines across chunks, including a character split between chunks, and skips empty lines", () => {
    const lines: string[] = [];
    const splitter = createLineSplitter(100, (line) => lines.push(line));
    const bytes = Buffer.from('{"a":"ø"}\n\n{"b":2}\n{"c"', "utf8");
    const cut = bytes.indexOf(0xb8); // the second byte of "ø"
    splitter.push(bytes.subarray(0, cut));
    splitter.push(bytes.subarray(cut));
    expect(lines).toEqual(['{"a":"ø"}', '{"b":2}']);
    expect(splitter.pendingBytes).toBe(4);
    splitter.push(Buffer.from(":3}\n"));
    expect(lines[2]).toBe('{"c":3}');
  });

  it("refuses a line longer than the limit, whether or not it has ended", () => {
    const splitter = createLineSplitter(10, () => {});
    expect(() => splitter.push(Buffer.from("x".repeat(11)))).toThrow(/longer than 10 bytes/);
    const other = createLineSplitter(10, () => {});
    other.push(Buffer.from("x".repeat(6)));
    expect(() => other.push(Buffer.from(`${"x".repeat(6)}\n`))).toThrow(/longer than 10 bytes/);
    const exact = createLineSplitter(10, () => {});
    expect(() => exact.push(Buffer.from(`${"x".repeat(10)}\n`))).not.toThrow();
  });
});

describe("programOutcome", () => {
  it("returns structuredContent when present, else the text blocks joined", () => {
    expect(
      programOutcome("t", { content: [{ type: "text", text: "{}" }], structuredContent: { a: 1 } }),
    ).toEqual({
      result: { a: 1 },
    });
    expect(
      programOutcome("t", {
        content: [{ type: "text", text: "one" }, { type: "image" }, { type: "text", text: "two" }],
      }),
    ).toEqual({ result: "one\ntwo" });
    expect(programOutcome("t", { content: [] })).toEqual({ result: "" });
  });

  it("turns isError into an error with the tool's text", () => {
    expect(
      programOutcome("t", { isError: true, content: [{ type: "text", text: "city not found" }] }),
    ).toEqual({
      error: { message: "city not found" },
    });
    expect(programOutcome("t", { isError: true, structuredContent: { a: 1 } })).toEqual({
      error: { message: "the tool 't' reported an error" },
    });
  });
});
