import { describe, expect, it } from "vitest";
import { SeriesTable } from "../src/series-table.js";

const table = () => new SeriesTable(["service", "transport"] as const, (labels) => ({ labels, value: 0 }));

describe("SeriesTable", () => {
  it("gives the same cell for the same values and lists cells in the order of first use", () => {
    const t = table();
    const b = t.cell(["b", "grpc"]);
    const a = t.cell(["a", "mcp"]);
    expect(t.cell(["b", "grpc"])).toBe(b);
    expect(t.cells()).toEqual([b, a]);
    expect(b.labels).toEqual({ service: "b", transport: "grpc" });
    expect(Object.keys(a.labels)).toEqual(["service", "transport"]);
  });

  it("keeps apart values that a joined string would confuse", () => {
    const t = table();
    const one = t.cell(["a\u0000b", "c"]);
    const two = t.cell(["a", "b\u0000c"]);
    const three = t.cell(["a,b", ""]);
    expect(new Set([one, two, three]).size).toBe(3);
    expect(two.labels).toEqual({ service: "a", transport: "b\u0000c" });
  });

  it("refuses a wrong number of values, and a table without labels", () => {
    expect(() => table().cell(["only-one"])).toThrow("Expected 2 label values (service, transport), got 1");
    expect(() => new SeriesTable([], () => ({}))).toThrow("at least one label name");
  });
});
