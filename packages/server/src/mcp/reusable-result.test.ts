import { describe, expect, it } from "vitest";
import { EncodedResult, ReusableResult } from "./reusable-result.js";

describe("ReusableResult", () => {
  it("encodes once per revision and era, and keeps each encoding apart", () => {
    const calls: string[] = [];
    const result = new ReusableResult({ tools: [{ name: "t", title: "T" }] }, (value, revision) => {
      calls.push(revision);
      return { ...value, revision };
    });
    const stamp = (value: object) => ({ ...value, stamped: true });
    const keep = (value: object) => value;
    const a = result.encodedFor("2025-11-25", "session", keep);
    const b = result.encodedFor("2025-03-26", "session", keep);
    const c = result.encodedFor("2025-11-25", "stateless", stamp);
    expect(result.encodedFor("2025-11-25", "session", stamp)).toBe(a);
    expect(calls).toEqual(["2025-11-25", "2025-03-26", "2025-11-25"]);
    expect(a.value).toMatchObject({ revision: "2025-11-25" });
    expect(a.value).not.toHaveProperty("stamped");
    expect(b.value).toMatchObject({ revision: "2025-03-26" });
    expect(c.value).toMatchObject({ revision: "2025-11-25", stamped: true });
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
