import { describe, expect, it } from "vitest";
import { pythonType, type SchemaTypeLimits, typescriptType } from "../src/index.js";

const LIMITS: SchemaTypeLimits = { maxDepth: 8, maxNodes: 2000, maxDescriptionLength: 500 };
const ts = (schema: unknown): string => typescriptType(schema, LIMITS);
const py = (schema: unknown): string => pythonType(schema, LIMITS);

describe("typescriptType and pythonType", () => {
  it("maps primitive types, lists of types and nullable", () => {
    expect([ts({ type: "string" }), py({ type: "string" })]).toEqual(["string", "str"]);
    expect([ts({ type: "integer" }), py({ type: "integer" })]).toEqual(["number", "int"]);
    expect([ts({ type: "number" }), py({ type: "number" })]).toEqual(["number", "float"]);
    expect([ts({ type: "boolean" }), py({ type: "boolean" })]).toEqual(["boolean", "bool"]);
    expect([ts({ type: ["string", "null"] }), py({ type: ["string", "null"] })]).toEqual([
      "string | null",
      "str | None",
    ]);
    expect([ts({ type: "string", nullable: true }), py({ type: "integer", nullable: true })]).toEqual([
      "string | null",
      "int | None",
    ]);
    expect([ts({}), py({}), ts(true), py(undefined)]).toEqual(["unknown", "Any", "unknown", "Any"]);
  });

  it("maps enums and consts to literal unions, quoting safely", () => {
    expect(ts({ enum: ["a", 'b"c', 3, null] })).toBe('"a" | "b\\"c" | 3 | null');
    expect(py({ enum: ["metric", "imperial"] })).toBe('Literal["metric", "imperial"]');
    expect(py({ enum: ["x", null, true] })).toBe('Literal["x", None, True]');
    expect([ts({ const: "fixed" }), py({ const: 2 })]).toEqual(['"fixed"', "Literal[2]"]);
    expect(ts({ enum: [{ a: 1 }] })).toBe("unknown");
  });

  it("maps arrays, tuples and records", () => {
    expect([
      ts({ type: "array", items: { type: "string" } }),
      py({ type: "array", items: { type: "string" } }),
    ]).toEqual(["string[]", "list[str]"]);
    expect(ts({ type: "array", items: { enum: ["a", "b"] } })).toBe('Array<"a" | "b">');
    expect([ts({ type: "array" }), py({ type: "array" })]).toEqual(["unknown[]", "list[Any]"]);
    const tuple = { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] };
    expect([ts(tuple), py(tuple)]).toEqual(["[string, number]", "tuple[str, float]"]);
    const record = { type: "object", additionalProperties: { type: "integer" } };
    expect(ts(record)).toContain("[key: string]: number;");
    expect(py(record)).toBe("dict[str, int]");
    expect([ts({ type: "object" }), py({ type: "object" })]).toEqual([
      "Record<string, unknown>",
      "dict[str, Any]",
    ]);
  });

  it("writes objects inline with optional marks, quoted keys and property docs", () => {
    const type = ts({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        "max-results": { type: "integer" },
        nested: { type: "object", properties: { deep: { type: "boolean" } }, required: ["deep"] },
      },
      required: ["city"],
    });
    expect(type).toBe(
      [
        "{",
        "  /** City name */",
        "  city: string;",
        '  "max-results"?: number;',
        "  nested?: {",
        "    deep: boolean;",
        "  };",
        "}",
      ].join("\n"),
    );
  });

  it("maps anyOf and oneOf to unions, allOf to intersections", () => {
    expect(ts({ anyOf: [{ type: "string" }, { type: "number" }] })).toBe("string | number");
    expect(py({ oneOf: [{ type: "string" }, { type: "integer" }] })).toBe("str | int");
    expect(ts({ anyOf: [{ type: "string" }, {}] })).toBe("unknown");
    expect(
      ts({
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
        ],
      }),
    ).toBe("{\n  a: string;\n} & {\n  b: number;\n}");
  });

  it("follows local $refs, and cuts cycles and unknown refs to unknown", () => {
    const schema = {
      type: "object",
      properties: { home: { $ref: "#/$defs/Address" }, other: { $ref: "https://example.com/x.json" } },
      $defs: {
        Address: {
          type: "object",
          properties: { street: { type: "string" }, next: { $ref: "#/$defs/Address" } },
        },
      },
    };
    const type = ts(schema);
    expect(type).toContain("street?: string;");
    expect(type).toContain("next?: unknown;");
    expect(type).toContain("other?: unknown;");
    expect(pythonType({ $ref: "#/$defs/Address" }, LIMITS, schema)).toBe("dict[str, Any]");
  });

  it("stays bounded on hostile schemas: depth and node limits give unknown", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 50; i++) deep = { type: "array", items: deep };
    expect(ts(deep)).toContain("unknown");
    expect(ts(deep).length).toBeLessThan(200);
    // Each definition refers to the next twice: written out in full it would double 30 times.
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++)
      defs[`d${i}`] = {
        type: "object",
        properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } },
      };
    const wide = { $ref: "#/$defs/d0", $defs: defs };
    const limited = typescriptType(wide, { maxDepth: 100, maxNodes: 500, maxDescriptionLength: 100 });
    expect(limited.length).toBeLessThan(100_000);
  });

  it("never lets a description close its comment", () => {
    const type = ts({
      type: "object",
      properties: { x: { type: "string", description: "*/ declare const evil: 1; /*" } },
    });
    expect(type).toContain("*\\/ declare const evil: 1; /*");
    expect(type).not.toContain("*/ declare");
  });
});
