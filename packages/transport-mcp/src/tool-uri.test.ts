import { TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { mcpToolUri, parseMcpToolUri } from "./tool-uri.js";

describe("MCP tool URIs", () => {
  it.each(["get-sum", "with space", "a/b", "ünïcode.tool", "%41"])("round-trips the tool name %s", (name) => {
    expect(parseMcpToolUri(mcpToolUri("my forward", name))).toEqual({
      forward: "my forward",
      toolName: name,
    });
  });

  it("refuses a URI of another form with InvalidArgument", () => {
    for (const uri of ["mcp://f/tool/x", "https://f/tools/x", "mcp://f/tools/", "mcp://f/tools/%E0%A4%A"]) {
      expect(() => parseMcpToolUri(uri)).toThrow(TrestleError);
    }
  });
});
