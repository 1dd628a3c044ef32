import { describe, expect, it } from "vitest";
import {
  decodeMcpContent,
  decodeResourceReply,
  decodeToolReply,
  encodeMcpContent,
  encodeResourceResult,
  encodeToolResult,
  MCP_CONTENT_MARKER,
} from "./content-encoding.js";

describe("MCP content encoding", () => {
  it("keeps bare text plain and round-trips text that looks like an encoded block", () => {
    expect(encodeMcpContent({ type: "text", text: "hello" })).toBe("hello");
    const tricky = { type: "text" as const, text: `${MCP_CONTENT_MARKER}{"type":"image"}` };
    const encoded = encodeMcpContent(tricky);
    expect(encoded).not.toBe(tricky.text);
    expect(decodeMcpContent(encoded)).toEqual(tricky);
  });

  it("round-trips a tool result with every kind of block and structured content", () => {
    const result = {
      content: [
        { type: "text" as const, text: "a" },
        { type: "audio" as const, data: "AAA=", mimeType: "audio/wav" },
        { type: "resource" as const, resource: { uri: "x://t", text: "inner" } },
      ],
      structuredContent: { n: 1 },
    };
    expect(decodeToolReply(encodeToolResult(result))).toEqual(result);
    expect(decodeToolReply(["plain from a gRPC service"])).toEqual({
      content: [{ type: "text", text: "plain from a gRPC service" }],
    });
  });

  it("keeps text resource contents of the requested URI plain and everything else restorable", () => {
    const contents = [
      { uri: "x://a", mimeType: "text/plain", text: "same uri" },
      { uri: "x://b", text: "other uri" },
      { uri: "x://a", blob: "AAEC", mimeType: "application/octet-stream" },
    ];
    const encoded = encodeResourceResult({ contents }, "x://a");
    expect(encoded[0]).toBe("same uri");
    expect(decodeResourceReply(encoded, { uri: "x://a", mimeType: "text/plain" })).toEqual(contents);
  });

  it("refuses a marked string that holds no JSON", () => {
    expect(() => decodeMcpContent(`${MCP_CONTENT_MARKER}{not json`)).toThrow(/no valid JSON/);
  });
});
