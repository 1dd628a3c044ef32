import { callToolDefinition, searchToolsDefinition } from "@trestle/tool-search";
import { generateToolCatalog } from "@trestle/tool-search/testing";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { definitionTokenCounts } from "../src/index.js";
import { executeCodeDefinition } from "./support/execute-code-definition.js";

describe("tokens of the tool definitions a client loads, 500-tool namespace (o200k_base)", () => {
  it("costs least with tool search, and less with code mode's declarations than with the plain listing", () => {
    const tools = generateToolCatalog({ count: 500 });
    const executeCode = executeCodeDefinition(tools);
    const counts = definitionTokenCounts({
      tools,
      toolSearchListing: [searchToolsDefinition(), callToolDefinition(), executeCode],
      executeCode,
      countTokens,
    });
    console.log(
      `plain tools/list: ${counts.plainListing}; tool search: ${counts.toolSearch}; ` +
        `code mode: ${counts.codeMode} (declarations ${counts.declarations})`,
    );
    expect(counts.plainListing).toBeGreaterThan(40_000);
    expect(counts.toolSearch).toBeLessThan(counts.plainListing / 50);
    expect(counts.codeMode).toBeLessThan(counts.plainListing);
    expect(counts.codeMode).toBe(counts.declarations + countTokens(JSON.stringify({ tools: [executeCode] })));
  });
});
