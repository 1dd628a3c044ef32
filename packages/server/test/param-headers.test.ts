import { describe, expect, it } from "vitest";
import { checkParamHeaders } from "../src/mcp/param-headers.js";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    verbose: { type: "boolean", "x-mcp-header": "Verbose" },
    options: { type: "object", properties: { mode: { type: "string", "x-mcp-header": "Mode" } } },
    free: { type: "string" },
  },
};

const refusal = (args: Record<string, unknown>, headers: Record<string, string>) => {
  try {
    checkParamHeaders(schema, args, headers);
    return undefined;
  } catch (error) {
    return error as { code: number; message: string };
  }
};

describe("Mcp-Param-* header checks", () => {
  it("accepts headers that mirror the marked arguments: plain, Base64, numbers numerically, booleans", () => {
    expect(
      refusal(
        { region: "us-west1", count: 42, verbose: true, options: { mode: "Hello, 世界" }, free: "x" },
        {
          "mcp-param-region": "us-west1",
          "mcp-param-count": "42.0",
          "mcp-param-verbose": "true",
          "mcp-param-mode": `=?base64?${Buffer.from("Hello, 世界").toString("base64")}?=`,
        },
      ),
    ).toBeUndefined();
  });

  it("expects no header for an argument that is absent or null", () => {
    expect(refusal({ region: null }, {})).toBeUndefined();
    expect(refusal({}, {})).toBeUndefined();
  });

  it("refuses with -32020 a missing, different or malformed header", () => {
    expect(refusal({ region: "eu" }, {})).toMatchObject({
      code: -32020,
      message: expect.stringContaining("Region"),
    });
    expect(refusal({ region: "eu" }, { "mcp-param-region": "us" })?.code).toBe(-32020);
    expect(refusal({ count: 3 }, { "mcp-param-count": "three" })?.code).toBe(-32020);
    expect(refusal({ verbose: false }, { "mcp-param-verbose": "0" })?.code).toBe(-32020);
    // Base64 without padding, or with characters outside the alphabet.
    expect(refusal({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" })?.code).toBe(-32020);
    expect(refusal({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" })?.code).toBe(-32020);
    // Without the sentinel's prefix or suffix a value is literal, and then it differs.
    expect(refusal({ region: "Hello" }, { "mcp-param-region": "SGVsbG8=" })?.code).toBe(-32020);
    expect(refusal({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8=" })?.code).toBe(-32020);
    // A plain value may not carry what a header value cannot (leading space, control characters).
    expect(refusal({ region: " padded" }, { "mcp-param-region": " padded" })?.code).toBe(-32020);
  });

  it("ignores a schema without marks", () => {
    expect(() =>
      checkParamHeaders({ type: "object", properties: { a: { type: "string" } } }, { a: "x" }, {}),
    ).not.toThrow();
  });
});
