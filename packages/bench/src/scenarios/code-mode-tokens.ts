/** What a client loads to know a namespace's tools, three ways, as the router served it. */
export interface ServedDefinitions {
  /** Every tool of the plain `tools/list` (all pages), as the router listed them. */
  plainListing: readonly object[];
  /** The `tools/list` result of the same tools with tool search on (`search_tools`, `call_tool`, `execute_code`). */
  searchListing: readonly object[];
  /** The text a model reads from one `search_tools` result (its text block: the matches as JSON). */
  searchResultText: string;
  /** `execute_code` as the plain listing lists it (its description points at the stubs). */
  executeCode: object;
  /** The `trestle://code-mode/tools.d.ts` resource's text. */
  declarations: string;
  /** The `trestle://code-mode/tools.pyi` resource's text. */
  pythonStub: string;
}

/** One way of loading the definitions: tokens and bytes of UTF-8. */
export interface TokenCount {
  tokens: number;
  bytes: number;
}

/** Tokens of the tool definitions a client would load, each way. */
export interface DefinitionTokens {
  /** Tools in the plain listing (the namespace's tools and `execute_code`). */
  listedTools: number;
  /** The plain `tools/list` result: `{"tools":[…]}` as JSON. */
  plainListing: TokenCount;
  /** The `tools/list` result with tool search on. */
  searchListing: TokenCount;
  /** One typical `search_tools` result (the default limit's matches), paid again for every search. */
  searchResult: TokenCount;
  /** Code mode: `execute_code`'s definition plus the TypeScript declarations of every tool. */
  codeMode: TokenCount;
  /** Of `codeMode`, the declarations alone. */
  declarations: TokenCount;
  /** The Python stub, for a client that writes Python instead (`execute_code`'s definition not included). */
  pythonStub: TokenCount;
}

const counted = (text: string, countTokens: (text: string) => number): TokenCount => ({
  tokens: countTokens(text),
  bytes: Buffer.byteLength(text, "utf8"),
});

/** A listing as a client holds it: `{"tools":[…]}`, compact JSON (what `tools/list`'s result carries). */
export const listingText = (tools: readonly object[]): string => JSON.stringify({ tools });

/**
 * Counts what a client loads each way with a real tokenizer (`countTokens` of `gpt-tokenizer`'s o200k_base in the
 * benchmark). Code mode is the `execute_code` definition and the declarations together: a client needs both.
 */
export function countDefinitionTokens(
  served: ServedDefinitions,
  countTokens: (text: string) => number,
): DefinitionTokens {
  const executeCode = counted(listingText([served.executeCode]), countTokens);
  const declarations = counted(served.declarations, countTokens);
  return {
    listedTools: served.plainListing.length,
    plainListing: counted(listingText(served.plainListing), countTokens),
    searchListing: counted(listingText(served.searchListing), countTokens),
    searchResult: counted(served.searchResultText, countTokens),
    codeMode: {
      tokens: executeCode.tokens + declarations.tokens,
      bytes: executeCode.bytes + declarations.bytes,
    },
    declarations,
    pythonStub: counted(served.pythonStub, countTokens),
  };
}
