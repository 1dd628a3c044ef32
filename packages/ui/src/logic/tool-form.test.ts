import { describe, expect, it } from "vitest";
import { emptyToolForm, toolFromForm } from "./tool-form";

describe("the add-a-tool form", () => {
  it("builds the tool from the fields, trimmed, with only what was given", () => {
    const result = toolFromForm({
      ...emptyToolForm("dev"),
      name: " weather ",
      type: "http",
      uri: "https://api.example/weather",
      inputSchema: '{"type":"object","properties":{"city":{"type":"string"}}}',
      labels: "team=ops\n\n env = prod ",
    });
    expect(result).toEqual({
      ok: true,
      tool: {
        name: "weather",
        type: "http",
        uri: "https://api.example/weather",
        namespace: "dev",
        inputSchema: { type: "object", properties: { city: { type: "string" } } },
        labels: { team: "ops", env: "prod" },
      },
    });
  });

  it("leaves the namespace out for the default one", () => {
    const result = toolFromForm({ ...emptyToolForm(""), name: "a", type: "b", uri: "x://y" });
    expect(result).toEqual({ ok: true, tool: { name: "a", type: "b", uri: "x://y" } });
  });

  it("names every field it can tell is wrong", () => {
    const result = toolFromForm({ ...emptyToolForm(), inputSchema: "[1, 2]", labels: "no-equals-sign" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual(["inputSchema", "labels", "name", "type", "uri"]);
    expect(result.errors.inputSchema).toMatch(/JSON object/);
    expect(result.errors.labels).toMatch(/Line 1/);
  });

  it("says why a schema is not JSON", () => {
    const result = toolFromForm({
      ...emptyToolForm(),
      name: "a",
      type: "b",
      uri: "x://y",
      inputSchema: "{type:",
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.inputSchema).toMatch(/^Not JSON/);
  });
});
