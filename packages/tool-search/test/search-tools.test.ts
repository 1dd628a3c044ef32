import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import {
  CALL_TOOL_NAME,
  callToolDefinition,
  parseCallToolArguments,
  parseSearchToolsArguments,
  SEARCH_TOOLS_NAME,
  searchToolsDefinition,
  searchToolsResult,
} from "../src/index.js";

function invalidMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.InvalidArgument);
    return (error as TrestleError).rawMessage;
  }
  throw new Error("expected an InvalidArgument error");
}

describe("search_tools and call_tool", () => {
  it("defines search_tools with its limits in the schema and a { tools } output schema", () => {
    const definition = searchToolsDefinition({ maxLimit: 20, defaultLimit: 5, maxQueryLength: 300 });
    expect(definition.name).toBe(SEARCH_TOOLS_NAME);
    expect(definition.inputSchema.required).toEqual(["query"]);
    expect(definition.inputSchema.properties.limit).toMatchObject({ maximum: 20, default: 5 });
    expect(definition.inputSchema.properties.query).toMatchObject({ maxLength: 300 });
    expect(definition.outputSchema?.required).toEqual(["tools"]);
    expect(definition.description).toContain(CALL_TOOL_NAME);
  });

  it("defines call_tool with a name and an arguments object", () => {
    const definition = callToolDefinition();
    expect(definition.name).toBe(CALL_TOOL_NAME);
    expect(definition.inputSchema.required).toEqual(["name"]);
    expect(definition.inputSchema.properties.arguments).toMatchObject({ type: "object" });
  });

  it("checks search_tools arguments: default and capped limit, clear errors", () => {
    expect(parseSearchToolsArguments({ query: "refund" })).toEqual({ query: "refund", limit: 10 });
    expect(parseSearchToolsArguments({ query: "refund", limit: 500 }, { maxLimit: 50 })).toEqual({
      query: "refund",
      limit: 50,
    });
    expect(invalidMessage(() => parseSearchToolsArguments({ query: "" }))).toMatch(/'query'/);
    expect(invalidMessage(() => parseSearchToolsArguments({ query: 3 }))).toMatch(/'query'/);
    expect(
      invalidMessage(() => parseSearchToolsArguments({ query: "x".repeat(11) }, { maxQueryLength: 10 })),
    ).toMatch(/11 characters; at most 10/);
    expect(invalidMessage(() => parseSearchToolsArguments({ query: "a", limit: 0 }))).toMatch(/'limit'/);
    expect(invalidMessage(() => parseSearchToolsArguments({ query: "a", limit: "5" }))).toMatch(/'limit'/);
    expect(invalidMessage(() => parseSearchToolsArguments(null))).toMatch(/object of arguments/);
  });

  it("checks call_tool arguments", () => {
    expect(parseCallToolArguments({ name: "get_weather", arguments: { city: "Oslo" } })).toEqual({
      name: "get_weather",
      arguments: { city: "Oslo" },
    });
    expect(parseCallToolArguments({ name: "ping" })).toEqual({ name: "ping", arguments: {} });
    expect(invalidMessage(() => parseCallToolArguments({ arguments: {} }))).toMatch(/'name'/);
    expect(invalidMessage(() => parseCallToolArguments({ name: "x", arguments: [1] }))).toMatch(
      /'arguments'/,
    );
    expect(invalidMessage(() => parseCallToolArguments("x"))).toMatch(/object of arguments/);
  });

  it("builds a result whose structuredContent is { tools } and whose text is the same JSON", () => {
    const tools = [{ name: "a", inputSchema: { type: "object" } }, { name: "b" }];
    const result = searchToolsResult(tools);
    expect(result.structuredContent).toEqual({ tools });
    expect(JSON.parse(result.content[0].text)).toEqual({ tools });
  });
});
