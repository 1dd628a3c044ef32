import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { countDefinitionTokens, listingText, type ServedDefinitions } from "./code-mode-tokens.js";

const tool = (name: string) => ({
  name,
  description: `Does ${name} with a record and returns it`,
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
});

const served: ServedDefinitions = {
  plainListing: [tool("get_weather"), tool("send_message"), tool("execute_code")],
  searchListing: [tool("search_tools"), tool("call_tool"), tool("execute_code")],
  searchResultText: JSON.stringify({ tools: [tool("get_weather")] }),
  executeCode: tool("execute_code"),
  declarations: "export interface Tools {\n  get_weather(args: { id: string }): Promise<unknown>;\n}\n",
  pythonStub: "class Tools:\n    def get_weather(self, *, id: str) -> Any: ...\n",
};

describe("counting the tokens of what a client loads", () => {
  it("counts each listing as the compact JSON a tools/list result carries", () => {
    const counts = countDefinitionTokens(served, countTokens);
    expect(counts.listedTools).toBe(3);
    expect(counts.plainListing.tokens).toBe(countTokens(listingText(served.plainListing)));
    expect(counts.plainListing.bytes).toBe(Buffer.byteLength(JSON.stringify({ tools: served.plainListing })));
    expect(counts.searchListing.tokens).toBe(countTokens(JSON.stringify({ tools: served.searchListing })));
    expect(counts.searchResult.tokens).toBe(countTokens(served.searchResultText));
    expect(counts.pythonStub.tokens).toBe(countTokens(served.pythonStub));
  });

  it("counts code mode as execute_code's definition plus the declarations", () => {
    const counts = countDefinitionTokens(served, countTokens);
    expect(counts.declarations.tokens).toBe(countTokens(served.declarations));
    expect(counts.codeMode.tokens).toBe(
      counts.declarations.tokens + countTokens(JSON.stringify({ tools: [served.executeCode] })),
    );
    expect(counts.codeMode.bytes).toBe(
      Buffer.byteLength(served.declarations) +
        Buffer.byteLength(JSON.stringify({ tools: [served.executeCode] })),
    );
  });

  it("counts with the tokenizer it is given, and bytes as UTF-8", () => {
    const characters = countDefinitionTokens({ ...served, declarations: "Tromsø" }, (text) => text.length);
    expect(characters.declarations).toEqual({ tokens: 6, bytes: 7 });
  });
});
