import { describe, expect, it } from "vitest";
import { parsePrompt, parseResource, parseTool } from "./catalog-schemas.js";

describe("catalog parsing of Wanaku's JSON", () => {
  it("treats null members (how Wanaku's Java clients send absent fields) as absent", () => {
    const tool = parseTool({
      id: null,
      name: "weather",
      description: null,
      uri: "https://api.example.com/{city}",
      type: "http",
      namespace: null,
      configurationURI: null,
      secretsURI: null,
      labels: null,
      inputSchema: {
        type: "object",
        properties: { city: { type: "string", description: "City", target: null, scope: null, value: null } },
        required: ["city"],
      },
    });
    expect(tool).not.toHaveProperty("namespace");
    expect(tool).not.toHaveProperty("configurationURI");
    expect(tool.inputSchema?.properties?.city).toEqual({ type: "string", description: "City" });
    expect(
      parseResource({ name: "r", location: "file:///x", type: "file", mimeType: null, params: null }),
    ).not.toHaveProperty("mimeType");
    expect(
      parsePrompt({
        name: "p",
        messages: [{ role: "user", content: { type: "text", text: "hi" } }],
        arguments: null,
      }),
    ).not.toHaveProperty("arguments");
  });

  it("still refuses a null where a value is required", () => {
    expect(() => parseTool({ name: "t", uri: null, type: "http" })).toThrow(/uri/);
  });
});
