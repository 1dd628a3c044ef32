import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { createToolIndex, type IndexableTool } from "../src/index.js";

const tool = (name: string, description: string, extra: Partial<IndexableTool> = {}): IndexableTool => ({
  name,
  description,
  ...extra,
});

const CATALOG: IndexableTool[] = [
  tool("github_create_issue", "Creates an issue in a GitHub repository.", {
    inputSchema: { properties: { title: { description: "Title" }, body: { description: "Text" } } },
  }),
  tool("github_list_issues", "Lists the issues of a GitHub repository."),
  tool("slackPostMessage", "Posts a message to a Slack channel."),
  tool("weather-get-forecast", "Returns the forecast for a city."),
  tool("stripe.refunds.create", "Refunds a payment."),
  tool("dns_update", "Changes a record.", {
    inputSchema: { properties: { record_type: { description: "Kind", enum: ["CNAME", "MX"] } } },
  }),
];

const names = (results: { tool: IndexableTool }[]): string[] => results.map((r) => r.tool.name);

function expectInvalid(run: () => unknown, message: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.InvalidArgument);
    expect((error as TrestleError).rawMessage).toMatch(message);
    return;
  }
  throw new Error("expected an InvalidArgument error");
}

describe("createToolIndex", () => {
  it("finds tools by the words of snake_case, camelCase, kebab-case and dotted names", () => {
    const index = createToolIndex({ tools: CATALOG, thesaurus: [] });
    expect(names(index.search("slack post", { limit: 1 }))).toEqual(["slackPostMessage"]);
    expect(names(index.search("weather forecast", { limit: 1 }))).toEqual(["weather-get-forecast"]);
    expect(names(index.search("stripe refunds", { limit: 1 }))).toEqual(["stripe.refunds.create"]);
    expect(names(index.search("create issue", { limit: 1 }))).toEqual(["github_create_issue"]);
  });

  it("indexes argument names, their descriptions and enum values", () => {
    const index = createToolIndex({ tools: CATALOG, thesaurus: [] });
    expect(names(index.search("cname", { limit: 1 }))).toEqual(["dns_update"]);
    expect(names(index.search("record type", { limit: 1 }))).toEqual(["dns_update"]);
  });

  it("stems words, and matches a word's beginning", () => {
    const index = createToolIndex({ tools: CATALOG, thesaurus: [] });
    expect(names(index.search("posting messages", { limit: 1 }))).toEqual(["slackPostMessage"]);
    expect(names(index.search("forec", { limit: 1 }))).toEqual(["weather-get-forecast"]);
  });

  it("finds synonyms through the thesaurus, and not without it", () => {
    const withThesaurus = createToolIndex({ tools: CATALOG });
    expect(names(withThesaurus.search("open a ticket", { limit: 1 }))).toEqual(["github_create_issue"]);
    const custom = createToolIndex({ tools: CATALOG, thesaurus: [["refund", "money back"]] });
    expect(names(custom.search("money back", { limit: 1 }))).toEqual(["stripe.refunds.create"]);
    expect(createToolIndex({ tools: CATALOG, thesaurus: [] }).search("money back")).toEqual([]);
  });

  it("returns results best first, with decreasing scores, at most limit", () => {
    const index = createToolIndex({ tools: CATALOG });
    const results = index.search("github issues", { limit: 2 });
    expect(results).toHaveLength(2);
    expect(names(results).every((n) => n.startsWith("github_"))).toBe(true);
    expect(results[0]?.score).toBeGreaterThanOrEqual(results[1]?.score ?? Number.POSITIVE_INFINITY);
    expect(index.search("the of and")).toEqual([]);
  });

  it("never returns a tool the filter refuses, and still fills the limit with allowed ones", () => {
    const many = Array.from({ length: 40 }, (_, i) => tool(`issue_tool_${i}`, `Creates issue number ${i}`));
    const index = createToolIndex({ tools: many });
    const everything = names(index.search("create issue", { limit: 40 }));
    const refused = new Set(everything.slice(0, 10));
    const seen: string[] = [];
    const results = index.search("create issue", {
      limit: 5,
      filter: (t) => {
        seen.push(t.name);
        return !refused.has(t.name);
      },
    });
    expect(results).toHaveLength(5);
    expect(names(results).some((n) => refused.has(n))).toBe(false);
    expect(seen.length).toBeLessThanOrEqual(40);
    expect(index.search("create issue", { limit: 5, filter: () => false })).toEqual([]);
  });

  it("never shows one principal's tools to another, even searched for by their exact name", () => {
    const owned = new Map([
      ["acme_payroll_export", "acme"],
      ["acme_payroll_submit", "acme"],
      ["globex_payroll_export", "globex"],
    ]);
    const index = createToolIndex({
      tools: [...owned.keys()].map((name) => tool(name, "Exports or submits the payroll run.")),
    });
    const visibleTo = (principal: string) => (t: IndexableTool) => owned.get(t.name) === principal;
    for (const query of ["acme_payroll_export", "acme payroll", "payroll export"]) {
      expect(names(index.search(query, { filter: visibleTo("globex") }))).toEqual(["globex_payroll_export"]);
    }
    expect(names(index.search("globex_payroll_export", { filter: visibleTo("acme") })).sort()).toEqual([
      "acme_payroll_export",
      "acme_payroll_submit",
    ]);
  });

  it("lowers a limit above the maximum, and refuses a limit that is not a positive integer", () => {
    const many = Array.from({ length: 30 }, (_, i) => tool(`report_${i}`, "Builds a report"));
    const index = createToolIndex({ tools: many, maxLimit: 7 });
    expect(index.search("report", { limit: 1000 })).toHaveLength(7);
    expect(index.search("report")).toHaveLength(7);
    expectInvalid(() => index.search("report", { limit: 0 }), /'limit' must be a positive integer/);
    expectInvalid(() => index.search("report", { limit: 2.5 }), /'limit' must be a positive integer/);
  });

  it("refuses an empty query and one longer than the maximum", () => {
    const index = createToolIndex({ tools: CATALOG, maxQueryLength: 20 });
    expectInvalid(() => index.search("   "), /non-empty/);
    expectInvalid(() => index.search("x".repeat(21)), /has 21 characters; at most 20/);
    expect(() => index.search("x".repeat(20))).not.toThrow();
  });

  it("adds, replaces and removes tools one at a time", () => {
    const index = createToolIndex<IndexableTool>();
    index.upsert(tool("a_tool", "Sends invoices"));
    expect(index.size).toBe(1);
    expect(names(index.search("invoice"))).toEqual(["a_tool"]);
    index.upsert(tool("a_tool", "Plays music"));
    expect(index.size).toBe(1);
    expect(index.search("invoice")).toEqual([]);
    expect(names(index.search("music"))).toEqual(["a_tool"]);
    expect(index.remove("a_tool")).toBe(true);
    expect(index.remove("a_tool")).toBe(false);
    expect(index.search("music")).toEqual([]);
    expect(index.size).toBe(0);
  });

  it("syncs to a new catalog with work only for what changed, and returns the newest object", () => {
    const index = createToolIndex({ tools: CATALOG });
    const sameText = { ...CATALOG[0], annotations: { readOnlyHint: false } } as IndexableTool;
    const changes = index.sync([
      sameText,
      ...CATALOG.slice(1, 4),
      tool("stripe.refunds.create", "Refunds a charge, in full or in part."),
      tool("calendar_book", "Books a meeting room."),
    ]);
    expect(changes).toEqual({ added: 1, replaced: 1, removed: 1 });
    expect(index.size).toBe(6);
    expect(index.get("github_create_issue")).toBe(sameText);
    expect(index.get("dns_update")).toBeUndefined();
    expect(names(index.search("meeting room", { limit: 1 }))).toEqual(["calendar_book"]);
    expect(index.search("issue").map((r) => r.tool)).toContain(sameText);
  });

  it("refuses a catalog with two tools of one name and leaves the index as it was", () => {
    const index = createToolIndex({ tools: CATALOG });
    expect(() => index.sync([tool("x", "one"), tool("x", "two")])).toThrow(/two tools are named 'x'/);
    expect(index.size).toBe(CATALOG.length);
  });

  it("indexes at most maxFieldLength characters of a field", () => {
    const index = createToolIndex({
      tools: [tool("long", `${"filler ".repeat(100)} needle`)],
      maxFieldLength: 100,
    });
    expect(index.search("needle")).toEqual([]);
    expect(names(index.search("filler"))).toEqual(["long"]);
  });

  it("refuses options that are not positive integers", () => {
    expectInvalid(() => createToolIndex({ maxLimit: 0 }), /'maxLimit'/);
    expectInvalid(() => createToolIndex({ maxQueryLength: -1 }), /'maxQueryLength'/);
  });
});
