import { describe, expect, it } from "vitest";
import { generateToolCatalog, toolCatalogCapacity } from "../src/testing/index.js";
import { QUALITY_QUERIES } from "./search-quality-queries.js";

/** MCP tool names (SEP-986): 1 to 128 of letters, digits, `_`, `-`, `.`. */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

describe("generateToolCatalog", () => {
  const catalog = generateToolCatalog();
  const capacity = toolCatalogCapacity();

  it("makes 10,000 tools with unique, valid MCP names by default", () => {
    expect(catalog).toHaveLength(10_000);
    expect(new Set(catalog.map((t) => t.name)).size).toBe(10_000);
    const malformed = catalog.filter(
      (tool) =>
        !MCP_TOOL_NAME.test(tool.name) ||
        tool.description.length < 20 ||
        tool.inputSchema.type !== "object" ||
        (tool.inputSchema.required ?? []).some((name) => !(name in tool.inputSchema.properties)),
    );
    expect(malformed).toEqual([]);
  });

  it("is deterministic, and a smaller catalog is a sample of the full one in its order", () => {
    expect(generateToolCatalog()).toEqual(catalog);
    const small = generateToolCatalog({ count: 500 });
    expect(small).toHaveLength(500);
    expect(generateToolCatalog({ count: 500 })).toEqual(small);
    const full = generateToolCatalog({ count: capacity });
    const position = new Map(full.map((t, i) => [t.name, i]));
    const positions = small.map((t) => position.get(t.name) ?? -1);
    expect(positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] ?? -1)))).toBe(true);
    expect(small.every((t) => JSON.stringify(full[position.get(t.name) ?? -1]) === JSON.stringify(t))).toBe(
      true,
    );
  });

  it("changes with the seed", () => {
    const other = generateToolCatalog({ count: 500, seed: 7 });
    expect(other.map((t) => t.name)).not.toEqual(generateToolCatalog({ count: 500 }).map((t) => t.name));
  });

  it("mixes naming styles, output schemas, titles and near-duplicates", () => {
    const names = catalog.map((t) => t.name);
    expect(names.filter((n) => /^[a-z0-9]+(_[a-z0-9]+)+$/.test(n)).length).toBeGreaterThan(3000);
    expect(names.filter((n) => /^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$/.test(n)).length).toBeGreaterThan(2000);
    expect(names.filter((n) => n.includes("-")).length).toBeGreaterThan(1000);
    expect(names.filter((n) => n.includes(".")).length).toBeGreaterThan(100);
    expect(names.filter((n) => /^[A-Z]/.test(n)).length).toBeGreaterThan(300);
    expect(catalog.filter((t) => t.outputSchema).length).toBeGreaterThan(500);
    expect(catalog.filter((t) => t.title).length).toBeGreaterThan(3000);
    expect(names.filter((n) => /create_?issue|CreateIssue|create-issue/i.test(n)).length).toBeGreaterThan(5);
  });

  it("refuses a count it cannot make", () => {
    expect(() => generateToolCatalog({ count: capacity + 1 })).toThrow(RangeError);
    expect(() => generateToolCatalog({ count: -1 })).toThrow(RangeError);
    expect(() => generateToolCatalog({ count: 1.5 })).toThrow(RangeError);
  });

  it("holds the tool each quality query names", () => {
    expect(QUALITY_QUERIES.length).toBeGreaterThanOrEqual(60);
    const names = new Set(catalog.map((t) => t.name));
    expect(QUALITY_QUERIES.filter((q) => !names.has(q.tool))).toEqual([]);
    expect(new Set(QUALITY_QUERIES.map((q) => q.query)).size).toBe(QUALITY_QUERIES.length);
  });
});
