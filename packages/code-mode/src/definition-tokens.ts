import type { CodeModeTool } from "./code-mode-tool.js";
import { typescriptDeclarations } from "./typescript-declarations.js";

/** What {@link definitionTokenCounts} compares. */
export interface DefinitionTokenInput {
  /** The namespace's tools, as `tools/list` lists them. */
  tools: readonly CodeModeTool[];
  /** The tools listed when tool search is on: `search_tools`, `call_tool` and `execute_code`. */
  toolSearchListing: readonly object[];
  /** `execute_code` as listed in code mode (its description pointing at the stubs). */
  executeCode: object;
  /** A tokenizer's count of a text, e.g. `countTokens` of `gpt-tokenizer`. */
  countTokens: (text: string) => number;
}

/** Tokens of the tool definitions a client loads, three ways. */
export interface DefinitionTokenCounts {
  /** The plain `tools/list` result: every tool's definition, as JSON. */
  plainListing: number;
  /** The `tools/list` result with tool search on: the three tools' definitions, as JSON. */
  toolSearch: number;
  /** Code mode: `execute_code`'s definition plus the TypeScript declarations of every tool. */
  codeMode: number;
  /** Of `codeMode`, the declarations alone. */
  declarations: number;
}

/**
 * Counts the tokens of what a client loads to know a namespace's tools: the plain listing, the listing with tool
 * search (whose results then cost tokens per search, not counted here), and code mode's declarations.
 */
export function definitionTokenCounts(input: DefinitionTokenInput): DefinitionTokenCounts {
  const listing = (tools: readonly object[]): number => input.countTokens(JSON.stringify({ tools }));
  const declarations = input.countTokens(typescriptDeclarations(input.tools));
  return {
    plainListing: listing(input.tools),
    toolSearch: listing(input.toolSearchListing),
    codeMode: listing([input.executeCode]) + declarations,
    declarations,
  };
}
