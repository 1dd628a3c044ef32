import { describe, expect, it } from "vitest";
import { EncodedResult, ReusableResult } from "./reusable-result.js";

describe("ReusableResult", () => {
  it("encodes once per key and keeps each key's encoding apart", () => {
    const result = new ReusableResult({ tools: [{ name: "t", title: "T" }] });
    const calls: string[] = [];
    const encode = (key: string) => (value: Record<string, unknown>) => {
      calls.push(key);
      return { ...value, key };
    };
    const a = result.encodedFor("session 2025-11-25", encode("new"));
    const b = result.encodedFor("session 2025-03-26", encode("old"));
    expect(result.encodedFor("session 2025-11-25", encode("again"))).toBe(a);
    expect(calls).toEqual(["new", "old"]);
    expect(a.value).toMatchObject({ key: "new" });
    expect(b.value).toMatchObject({ key: "old" });
  });
});

describe("EncodedResult", () => {
  it("gives the UTF-8 bytes of its value's JSON once, and the value to a writer that serializes a message", () => {
    const encoded = new EncodedResult({ text: "naïve ✓", n: 1 });
    expect(encoded.json.toString("utf8")).toBe(JSON.stringify({ text: "naïve ✓", n: 1 }));
    expect(encoded.json).toBe(encoded.json);
    expect(JSON.parse(JSON.stringify({ id: 1, result: encoded }))).toEqual({
      id: 1,
      result: { text: "naïve ✓", n: 1 },
    });
  });
});

describe("EncodedResult.answerParts", () => {
  it("is the JSON-RPC answer under any id, the result's bytes shared between answers", () => {
    const encoded = new EncodedResult({ tools: [{ name: "t" }] });
    const first = encoded.answerParts('a"b');
    const second = encoded.answerParts(7);
    expect(JSON.parse(Buffer.concat(first).toString("utf8"))).toEqual({
      jsonrpc: "2.0",
      id: 'a"b',
      result: { tools: [{ name: "t" }] },
    });
    expect(JSON.parse(Buffer.concat(second).toString("utf8")).id).toBe(7);
    expect(first[1]).toBe(second[1]);
  });
});
