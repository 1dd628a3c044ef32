import type { ToolResult } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { asSent, expectValid } from "../../../test/mcp-wire/revision-schemas.js";
import {
  noteFor,
  richCallToolResult,
  richGetPromptResult,
  richReadResourceResult,
  whats,
} from "../../../test/mcp-wire/rich-inputs.js";
import { encodeResult } from "./envelope.js";
import {
  encodeCallToolResult,
  encodeCompleteResult,
  encodeGetPromptResult,
  encodePromptResult,
  encodeReadResourceResult,
  encodeToolResult,
} from "./results.js";
import { LATEST_MCP_REVISION, MCP_REVISIONS } from "./revisions.js";
import type { McpContentBlock } from "./types.js";

describe.each(MCP_REVISIONS)("rich results encoded for %s", (revision) => {
  it("validate against the revision's schema", () => {
    expectValid(revision, "CallToolResult", encodeCallToolResult(richCallToolResult(), revision).value);
    const arrayResult = { ...richCallToolResult(), structuredContent: [1, 2, 3] };
    expectValid(revision, "CallToolResult", encodeCallToolResult(arrayResult, revision).value);
    expectValid(revision, "GetPromptResult", encodeGetPromptResult(richGetPromptResult(), revision).value);
    expectValid(
      revision,
      "ReadResourceResult",
      encodeReadResourceResult(richReadResourceResult(), revision).value,
    );
    const completion = {
      resultType: "complete",
      completion: { values: ["a", "b"], total: 2, hasMore: false },
    };
    expectValid(revision, "CompleteResult", encodeCompleteResult(completion, revision).value);
  });

  it("validate the same inputs without the 2026-07-28 envelope fields", () => {
    const { resultType: _r, ttlMs: _t, cacheScope: _c, ...read } = richReadResourceResult();
    expectValid(
      revision,
      "ReadResourceResult",
      asSent(revision, encodeReadResourceResult(read, revision).value),
    );
    const { resultType: _r2, ...call } = richCallToolResult();
    const encoded = encodeCallToolResult(call, revision).value;
    expectValid(revision, "CallToolResult", asSent(revision, encoded));
  });

  it("encode what they already encoded to the same object with no notes (a lossless input gets no notes)", () => {
    const call = encodeCallToolResult(richCallToolResult(), revision);
    expect(encodeCallToolResult(call.value, revision)).toEqual({ value: call.value, notes: [] });
    expect(encodeCallToolResult(call.value, revision).value).toBe(call.value);
    const prompt = encodeGetPromptResult(richGetPromptResult(), revision);
    expect(encodeGetPromptResult(prompt.value, revision).value).toBe(prompt.value);
    expect(encodeGetPromptResult(prompt.value, revision).notes).toEqual([]);
    const read = encodeReadResourceResult(richReadResourceResult(), revision);
    expect(encodeReadResourceResult(read.value, revision).value).toBe(read.value);
    expect(encodeReadResourceResult(read.value, revision).notes).toEqual([]);
  });
});

describe("the newest revision", () => {
  it("passes rich 2026-07-28 results through as the same objects, with no notes", () => {
    const inputs = [richCallToolResult(), { ...richCallToolResult(), structuredContent: [1, "two", null] }];
    for (const input of inputs) {
      const encoded = encodeCallToolResult(input, LATEST_MCP_REVISION);
      expect(encoded.value).toBe(input);
      expect(encoded.notes).toEqual([]);
    }
    const prompt = richGetPromptResult();
    expect(encodeGetPromptResult(prompt, LATEST_MCP_REVISION).value).toBe(prompt);
    const read = richReadResourceResult();
    expect(encodeReadResourceResult(read, LATEST_MCP_REVISION).value).toBe(read);
  });

  it("leaves resultType to the dispatcher, and gives a read without caching hints the most conservative ones", () => {
    const input = { content: [{ type: "text" as const, text: "x" }] };
    const call = encodeCallToolResult(input, LATEST_MCP_REVISION);
    expect(call.value).toBe(input);
    expect(call.notes).toEqual([]);
    const kept = encodeReadResourceResult({ contents: [], ttlMs: 1000 }, LATEST_MCP_REVISION);
    expect(kept.value).toEqual({ contents: [], ttlMs: 1000, cacheScope: "private" });
    expect(encodeResult({}, LATEST_MCP_REVISION).value).toEqual({});
  });

  it("keeps an input_required result for 2026-07-28 and refuses it for a session-era revision", () => {
    const pending = { resultType: "input_required", inputRequests: {}, requestState: "s" };
    expect(encodeResult(pending, LATEST_MCP_REVISION).value).toBe(pending);
    expect(() => encodeResult(pending, "2025-11-25")).toThrow(/input_required.*2025-11-25/);
  });
});

describe("a tool result from the call service", () => {
  const result = (): ToolResult => ({
    content: [
      { type: "text", text: "Sunny" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    ],
    structuredContent: { temperature: 21.5 },
  });

  it("is the same object for a 2025-11-25 or a 2026-07-28 client, with the shared empty notes", () => {
    for (const revision of ["2025-11-25", LATEST_MCP_REVISION] as const) {
      const input = result();
      const encoded = encodeToolResult(input, revision);
      expect(encoded.value).toBe(input);
      expect(encoded.notes).toEqual([]);
      expect(Object.isFrozen(encoded.notes)).toBe(true);
    }
  });

  it("is valid in every revision, each loss noted", () => {
    for (const revision of MCP_REVISIONS) {
      const encoded = encodeToolResult(result(), revision);
      expectValid(revision, "CallToolResult", asSent(revision, encoded.value));
    }
    expect(whats(encodeToolResult(result(), "2024-11-05"))).toEqual([
      "content[1] (audio)",
      "structuredContent",
    ]);
  });

  it("never carries inputRequired, which is the front's to answer, not a wire field", () => {
    const asking: ToolResult = {
      ...result(),
      inputRequired: { requests: { q: { kind: "elicitation", params: { message: "?" } } } },
    };
    const encoded = encodeToolResult(asking, LATEST_MCP_REVISION);
    expect(encoded.value).not.toHaveProperty("inputRequired");
    expect(encoded.value.content).toBe(asking.content);
  });

  it("a prompt result loses inputRequired too, and keeps its messages", () => {
    const messages = [{ role: "user" as const, content: { type: "text" as const, text: "Hi" } }];
    const plain = { description: "d", messages };
    expect(encodePromptResult(plain, "2025-06-18").value).toBe(plain);
    const asking = { ...plain, inputRequired: { requests: {} } };
    expect(encodePromptResult(asking, "2025-06-18").value).toEqual(plain);
  });
});

describe("downgrades of a tool result", () => {
  it("2024-11-05: audio and the resource link become text, structured content becomes JSON text", () => {
    const encoded = encodeCallToolResult(richCallToolResult(), "2024-11-05");
    const content: McpContentBlock[] = encoded.value.content;
    expect(content.map((b) => b.type)).toEqual([
      "text",
      "image",
      "text",
      "resource",
      "resource",
      "text",
      "text",
    ]);
    const text = (index: number) => {
      const block = content[index];
      return block?.type === "text" ? block.text : undefined;
    };
    expect(text(2)).toMatch(/Audio omitted \(audio\/wav, 2\.9 KB\)/);
    expect(content[2]?.annotations).toEqual({ priority: 1 });
    expect(text(5)).toBe(
      "[Resource link: Q3 report (q3.pdf) <file:///reports/q3.pdf> (application/pdf, 120.6 KB) - Quarterly figures]",
    );
    expect(JSON.parse(text(6) as string)).toEqual({ temperature: 21.5, unit: "C" });
    expect(encoded.value).not.toHaveProperty("structuredContent");
    expect(encoded.value).not.toHaveProperty("resultType");
    expect(encoded.value._meta).toEqual({ "com.example/k": "v" });
    expect(noteFor(encoded.notes, "content[2] (audio)")?.action).toBe("dropped");
    expect(noteFor(encoded.notes, "content[5] (resource_link)")?.action).toBe("rewritten");
    expect(noteFor(encoded.notes, "structuredContent")).toMatchObject({ action: "rewritten" });
    expect(noteFor(encoded.notes, "structuredContent")?.detail).toMatch(/content\[6\]/);
    expect(whats(encoded)).toEqual(
      expect.arrayContaining([
        "content[0] (text) _meta",
        "content[0] (text) annotations.lastModified",
        "content[3] (resource) annotations.lastModified",
        "content[3] (resource) resource._meta",
      ]),
    );
    // The input is not changed.
    expect(richCallToolResult()).toEqual(richCallToolResult());
  });

  it("2025-03-26: audio stays; the link and structured content are still rewritten", () => {
    const encoded = encodeCallToolResult(richCallToolResult(), "2025-03-26");
    expect(encoded.value.content[2]?.type).toBe("audio");
    expect(encoded.value.content[5]?.type).toBe("text");
    expect(whats(encoded)).not.toContain("content[2] (audio)");
    expect(whats(encoded)).toContain("content[5] (resource_link)");
    expect(whats(encoded)).toContain("structuredContent");
  });

  it("2025-06-18: only the link's icons are dropped", () => {
    const encoded = encodeCallToolResult(richCallToolResult(), "2025-06-18");
    expect(whats(encoded)).toEqual(["content[5] (resource_link) icons"]);
    expect(encoded.value.structuredContent).toEqual({ temperature: 21.5, unit: "C" });
    expect(encoded.value.content[5]).not.toHaveProperty("icons");
  });

  it("2025-11-25: nothing but the envelope changes", () => {
    const input = richCallToolResult();
    const encoded = encodeCallToolResult(input, "2025-11-25");
    expect(encoded.notes).toEqual([]);
    expect(encoded.value.content).toBe(input.content);
    expect(encoded.value).not.toHaveProperty("resultType");
    expect(encoded.value._meta).toEqual({ "com.example/k": "v" });
  });

  it("does not duplicate structured content a text block already carries", () => {
    const structured = { a: 1, b: [true, null] };
    const input = {
      content: [{ type: "text" as const, text: JSON.stringify(structured, null, 2) }],
      structuredContent: structured,
    };
    const encoded = encodeCallToolResult(input, "2025-03-26");
    expect(encoded.value).toEqual({ content: input.content });
    expect(noteFor(encoded.notes, "structuredContent")).toMatchObject({ action: "dropped" });
    expect(noteFor(encoded.notes, "structuredContent")?.detail).toMatch(/content\[0\]/);
  });

  it("2025-06-18 and 2025-11-25: non-object structured content becomes JSON text", () => {
    for (const revision of ["2025-06-18", "2025-11-25"] as const) {
      const encoded = encodeCallToolResult({ content: [], structuredContent: ["x", 2] }, revision);
      expect(encoded.value).toEqual({ content: [{ type: "text", text: '["x",2]' }] });
      expect(noteFor(encoded.notes, "structuredContent")?.detail).toMatch(/only a JSON object/);
    }
  });

  it("replaces a content type no revision defines in results", () => {
    // What an upstream may send though no schema lists it in a result.
    const toolUse = JSON.parse('{"type":"tool_use","id":"1","name":"x","input":{}}') as McpContentBlock;
    const encoded = encodeCallToolResult({ content: [toolUse] }, LATEST_MCP_REVISION);
    expect(encoded.value.content).toEqual([
      { type: "text", text: "[Content of type 'tool_use' omitted: MCP results cannot carry it.]" },
    ]);
    expect(whats(encoded)).toEqual(["content[0] (tool_use)"]);
  });

  it("translates a prompt message's single block the same way", () => {
    const encoded = encodeGetPromptResult(richGetPromptResult(), "2024-11-05");
    expect(encoded.value.messages[2]?.content.type).toBe("text");
    expect(encoded.value.messages[5]?.content.type).toBe("text");
    expect(whats(encoded)).toEqual(
      expect.arrayContaining(["messages[2].content (audio)", "messages[5].content (resource_link)"]),
    );
  });

  it("cuts a completion to 100 values, noted as approximated", () => {
    const values = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const encoded = encodeCompleteResult({ completion: { values } }, LATEST_MCP_REVISION);
    expect(encoded.value.completion.values).toHaveLength(100);
    expect(encoded.value.completion.hasMore).toBe(true);
    expect(encoded.notes).toEqual([
      expect.objectContaining({ action: "approximated", what: "completion.values" }),
    ]);
    expectValid(LATEST_MCP_REVISION, "CompleteResult", asSent(LATEST_MCP_REVISION, encoded.value));
  });
});
