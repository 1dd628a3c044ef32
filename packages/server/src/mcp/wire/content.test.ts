import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asSent, expectValid, OLDER_REVISIONS } from "../../../test/mcp-wire/revision-schemas.js";
import { whats } from "../../../test/mcp-wire/rich-inputs.js";
import { encodeCallToolResult } from "./results.js";
import { isAtLeast, LATEST_MCP_REVISION, MCP_REVISIONS } from "./revisions.js";
import type { McpCallToolResult, McpContentBlock } from "./types.js";

const uri = fc.webUrl({ withQueryParameters: false, withFragments: false });
const base64 = fc.uint8Array({ minLength: 0, maxLength: 64 }).map((b) => Buffer.from(b).toString("base64"));
const annotations = fc.record(
  {
    audience: fc.subarray(["user", "assistant"] as const),
    priority: fc.double({ min: 0, max: 1, noNaN: true }),
    lastModified: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  },
  { requiredKeys: [] },
);
const meta = fc.dictionary(fc.constantFrom("com.example/a", "com.example/b", "trace"), fc.jsonValue(), {
  maxKeys: 2,
});
const base = { annotations, _meta: meta };
const block: fc.Arbitrary<McpContentBlock> = fc.oneof(
  fc.record(
    { type: fc.constant("text" as const), text: fc.string(), ...base },
    { requiredKeys: ["type", "text"] },
  ),
  fc.record(
    {
      type: fc.constant("image" as const),
      data: base64,
      mimeType: fc.constantFrom("image/png", "image/jpeg"),
      ...base,
    },
    { requiredKeys: ["type", "data", "mimeType"] },
  ),
  fc.record(
    {
      type: fc.constant("audio" as const),
      data: base64,
      mimeType: fc.constantFrom("audio/wav", "audio/mpeg"),
      ...base,
    },
    { requiredKeys: ["type", "data", "mimeType"] },
  ),
  fc.record(
    {
      type: fc.constant("resource" as const),
      resource: fc.oneof(
        fc.record(
          { uri, text: fc.string(), mimeType: fc.constant("text/plain"), _meta: meta },
          { requiredKeys: ["uri", "text"] },
        ),
        fc.record({ uri, blob: base64, _meta: meta }, { requiredKeys: ["uri", "blob"] }),
      ),
      ...base,
    },
    { requiredKeys: ["type", "resource"] },
  ),
  fc.record(
    {
      type: fc.constant("resource_link" as const),
      uri,
      name: fc.string({ minLength: 1 }),
      title: fc.string(),
      description: fc.string(),
      mimeType: fc.constantFrom("application/pdf", "text/plain"),
      size: fc.nat(),
      icons: fc.array(fc.record({ src: uri }), { maxLength: 2 }),
      ...base,
    },
    { requiredKeys: ["type", "uri", "name"] },
  ),
);
const toolResult: fc.Arbitrary<McpCallToolResult> = fc.record(
  {
    content: fc.array(block, { maxLength: 6 }),
    structuredContent: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), fc.jsonValue()),
    isError: fc.boolean(),
    resultType: fc.constant("complete"),
  },
  { requiredKeys: ["content", "resultType"] },
);

/** The text of a text block. */
function textOf(block: McpContentBlock): string | undefined {
  return block.type === "text" ? block.text : undefined;
}

describe("random combinations of content blocks", () => {
  it("encode valid for every revision, note every changed block, and pass unchanged at the newest", () => {
    fc.assert(
      fc.property(toolResult, fc.constantFrom(...MCP_REVISIONS), (input, revision) => {
        const snapshot = structuredClone(input);
        const encoded = encodeCallToolResult(input, revision);
        expectValid(revision, "CallToolResult", asSent(revision, encoded.value));
        expect(input).toEqual(snapshot);

        // Every block that did not arrive as it was has a note naming its index.
        input.content.forEach((original, index) => {
          if (encoded.value.content[index] !== original) {
            expect(whats(encoded).some((w) => w.startsWith(`content[${index}] `))).toBe(true);
          }
        });
        // Structured content that did not arrive is noted, and its JSON is in a text block.
        if (input.structuredContent !== undefined && !("structuredContent" in encoded.value)) {
          expect(whats(encoded)).toContain("structuredContent");
          const texts = encoded.value.content.map(textOf).filter((t) => t !== undefined);
          expect(
            texts.some((t) => {
              try {
                return JSON.stringify(JSON.parse(t)) === JSON.stringify(input.structuredContent);
              } catch {
                return false;
              }
            }),
          ).toBe(true);
        }
        // Nothing beyond a structured-content text block is added, nothing is lost.
        expect(encoded.value.content.length - input.content.length).toBeLessThanOrEqual(1);
        expect(encoded.value.content.length).toBeGreaterThanOrEqual(input.content.length);

        if (revision === LATEST_MCP_REVISION) {
          expect(encoded.value).toBe(input);
          expect(encoded.notes).toEqual([]);
        }
        // What is already in the revision's shape encodes to itself, with no notes.
        const again = encodeCallToolResult(encoded.value, revision);
        expect(again.value).toBe(encoded.value);
        expect(again.notes).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("older revisions never receive a content type they lack", () => {
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 6 }),
        fc.constantFrom(...OLDER_REVISIONS),
        (content, revision) => {
          const types = encodeCallToolResult({ content }, revision).value.content.map((b) => b.type);
          if (!isAtLeast(revision, "2025-03-26")) expect(types).not.toContain("audio");
          if (!isAtLeast(revision, "2025-06-18")) expect(types).not.toContain("resource_link");
        },
      ),
      { numRuns: 200 },
    );
  });
});
