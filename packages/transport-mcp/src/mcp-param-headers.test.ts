import { describe, expect, it } from "vitest";
import { invalidMcpHeaderReason, mcpHeaderValue, mcpParamHeaders } from "./mcp-param-headers.js";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    options: { type: "object", properties: { dry: { type: "boolean", "x-mcp-header": "Dry-Run" } } },
    query: { type: "string" },
  },
};

describe("Mcp-Param headers", () => {
  it("mirror each marked argument with a value, nested ones included", () => {
    expect(
      mcpParamHeaders(schema, { region: "us-west1", count: -7, options: { dry: false }, query: "q" }),
    ).toEqual({
      "mcp-param-region": "us-west1",
      "mcp-param-count": "-7",
      "mcp-param-dry-run": "false",
    });
  });

  it("are omitted for absent and null arguments, and for schemas without marks", () => {
    expect(mcpParamHeaders(schema, { region: null, options: {} })).toEqual({});
    expect(mcpParamHeaders({ type: "object", properties: { a: { type: "string" } } }, { a: "x" })).toEqual(
      {},
    );
    expect(mcpParamHeaders(undefined, { a: "x" })).toEqual({});
  });

  it("encode what is not plain visible ASCII, and what looks like the sentinel, as the spec's examples", () => {
    expect(mcpHeaderValue("us-west1")).toBe("us-west1");
    expect(mcpHeaderValue("Hello, 世界")).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect(mcpHeaderValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=");
    expect(mcpHeaderValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=");
    expect(mcpHeaderValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  });
});

describe("invalid x-mcp-header marks", () => {
  it("are none for a valid schema or one without marks", () => {
    expect(invalidMcpHeaderReason(schema)).toBeUndefined();
    expect(invalidMcpHeaderReason({ type: "object" })).toBeUndefined();
  });

  it("are named: a number, a non-token name, a duplicate, a mark behind items or anyOf", () => {
    const one = (property: object) => ({ type: "object", properties: { p: property } });
    expect(invalidMcpHeaderReason(one({ type: "number", "x-mcp-header": "P" }))).toMatch(
      /not a string, integer or boolean/,
    );
    expect(invalidMcpHeaderReason(one({ type: "string", "x-mcp-header": "bad name" }))).toMatch(
      /not an HTTP field-name token/,
    );
    expect(invalidMcpHeaderReason(one({ type: "string", "x-mcp-header": "" }))).toMatch(/token/);
    expect(
      invalidMcpHeaderReason({
        type: "object",
        properties: {
          a: { type: "string", "x-mcp-header": "X" },
          b: { type: "string", "x-mcp-header": "x" },
        },
      }),
    ).toMatch(/used twice/);
    expect(
      invalidMcpHeaderReason(one({ type: "array", items: { type: "string", "x-mcp-header": "Item" } })),
    ).toMatch(/not reachable/);
    expect(invalidMcpHeaderReason(one({ anyOf: [{ type: "string", "x-mcp-header": "Any" }] }))).toMatch(
      /not reachable/,
    );
  });
});
