import { describe, expect, it } from "vitest";
import { asSent, expectValid } from "../../../test/mcp-wire/revision-schemas.js";
import {
  arrayOutputTool,
  list,
  noteFor,
  richPrompt,
  richResource,
  richTemplate,
  richTool,
  whats,
} from "../../../test/mcp-wire/rich-inputs.js";
import { encodeListResult, encodeTool } from "./listings.js";
import { LATEST_MCP_REVISION, MCP_REVISIONS } from "./revisions.js";

describe.each(MCP_REVISIONS)("rich lists encoded for %s", (revision) => {
  it("validate against the revision's schema", () => {
    const tools = list("tools", [richTool(), arrayOutputTool()]);
    expectValid(revision, "ListToolsResult", encodeListResult("tools", tools, revision).value);
    const resources = list("resources", [richResource()]);
    expectValid(revision, "ListResourcesResult", encodeListResult("resources", resources, revision).value);
    const templates = list("resourceTemplates", [richTemplate()]);
    expectValid(
      revision,
      "ListResourceTemplatesResult",
      encodeListResult("resourceTemplates", templates, revision).value,
    );
    const prompts = list("prompts", [richPrompt()]);
    expectValid(revision, "ListPromptsResult", encodeListResult("prompts", prompts, revision).value);
    const bare = encodeListResult("tools", { tools: [richTool()] }, revision).value;
    expectValid(revision, "ListToolsResult", asSent(revision, bare));
  });

  it("encode what they already encoded to the same object with no notes", () => {
    const once = encodeListResult("tools", list("tools", [richTool(), arrayOutputTool()]), revision);
    const twice = encodeListResult("tools", once.value, revision);
    expect(twice.value).toBe(once.value);
    expect(twice.notes).toEqual([]);
    const prompts = encodeListResult("prompts", list("prompts", [richPrompt()]), revision);
    expect(encodeListResult("prompts", prompts.value, revision).value).toBe(prompts.value);
  });
});

describe("lists for the newest revision", () => {
  it("come back as the same objects, with no notes", () => {
    const tools = list("tools", [richTool(), arrayOutputTool()]);
    expect(encodeListResult("tools", tools, LATEST_MCP_REVISION)).toEqual({ value: tools, notes: [] });
    expect(encodeListResult("tools", tools, LATEST_MCP_REVISION).value).toBe(tools);
    const resources = list("resources", [richResource()]);
    expect(encodeListResult("resources", resources, LATEST_MCP_REVISION).value).toBe(resources);
    const templates = list("resourceTemplates", [richTemplate()]);
    expect(encodeListResult("resourceTemplates", templates, LATEST_MCP_REVISION).value).toBe(templates);
    const prompts = list("prompts", [richPrompt()]);
    expect(encodeListResult("prompts", prompts, LATEST_MCP_REVISION).value).toBe(prompts);
  });

  it("get the most conservative caching hints when they have none, without notes", () => {
    const tools = encodeListResult("tools", { tools: [] }, LATEST_MCP_REVISION);
    expect(tools.value).toEqual({ tools: [], ttlMs: 0, cacheScope: "private" });
    expect(tools.notes).toEqual([]);
    const explicitUndefined = encodeListResult(
      "resources",
      { resources: [], resultType: undefined, ttlMs: undefined },
      LATEST_MCP_REVISION,
    );
    expectValid(
      LATEST_MCP_REVISION,
      "ListResourcesResult",
      asSent(LATEST_MCP_REVISION, explicitUndefined.value),
    );
  });

  it("drop the 2025-11-25 tool execution field, noting it only when the tool requires tasks", () => {
    const optional = encodeTool(
      { ...richTool(), execution: { taskSupport: "optional" } },
      LATEST_MCP_REVISION,
    );
    expect(optional.value).not.toHaveProperty("execution");
    expect(optional.notes).toEqual([]);
    const required = encodeTool({ ...richTool(), execution: { taskSupport: "required" } }, "2025-06-18");
    expect(required.value).not.toHaveProperty("execution");
    expect(whats(required)).toContain("tool 'weather' execution");
    const kept = {
      ...richTool(),
      inputSchema: { type: "object" as const },
      execution: { taskSupport: "required" as const },
    };
    expect(encodeTool(kept, "2025-11-25").value).toBe(kept);
    expectValid("2025-11-25", "Tool", kept);
  });
});

describe("downgrades of listings", () => {
  it("a tool for 2024-11-05 loses title, annotations, output schema, icons and _meta, each noted", () => {
    const encoded = encodeTool(richTool(), "2024-11-05");
    expect(encoded.value).toEqual({
      name: "weather",
      description: "Current weather for a city",
      inputSchema: {
        type: "object",
        properties: { city: { type: "string" }, units: { enum: ["metric", "imperial"] }, anything: {} },
        required: ["city"],
      },
    });
    expect(whats(encoded).sort()).toEqual(
      [
        "tool 'weather' title",
        "tool 'weather' annotations",
        "tool 'weather' outputSchema",
        "tool 'weather' icons",
        "tool 'weather' _meta",
      ].sort(),
    );
  });

  it("a tool for 2025-03-26 keeps its title as annotations.title", () => {
    const encoded = encodeTool(richTool(), "2025-03-26");
    expect(encoded.value.annotations).toMatchObject({ title: "Weather", readOnlyHint: true });
    expect(encoded.value).not.toHaveProperty("title");
    expect(noteFor(encoded.notes, "tool 'weather' title")?.action).toBe("rewritten");
  });

  it("an array output schema is dropped before 2026-07-28; a boolean property schema is rewritten without a note", () => {
    const encoded = encodeTool(arrayOutputTool(), "2025-11-25");
    expect(encoded.value).toEqual({ name: "list-cities", inputSchema: { type: "object" } });
    expect(whats(encoded)).toEqual(["tool 'list-cities' outputSchema"]);
    const boolean = encodeTool(
      { name: "b", inputSchema: { type: "object", properties: { no: false } } },
      "2025-11-25",
    );
    expect(boolean.value.inputSchema).toEqual({ type: "object", properties: { no: { not: {} } } });
    expect(boolean.notes).toEqual([]);
  });

  it("resources, templates and prompts lose title before 2025-06-18 and icons before 2025-11-25", () => {
    const resources = encodeListResult("resources", list("resources", [richResource()]), "2025-06-18");
    expect(whats(resources)).toEqual(["resource 'file:///notes/a.txt' icons"]);
    const old = encodeListResult("resources", list("resources", [richResource()]), "2025-03-26");
    expect(whats(old).sort()).toEqual(
      [
        "resource 'file:///notes/a.txt' _meta",
        "resource 'file:///notes/a.txt' annotations.lastModified",
        "resource 'file:///notes/a.txt' title",
        "resource 'file:///notes/a.txt' icons",
      ].sort(),
    );
    expect(old.value.resources[0]).toEqual({
      uri: "file:///notes/a.txt",
      name: "a.txt",
      description: "First notes",
      mimeType: "text/plain",
      size: 1,
      annotations: { audience: ["user", "assistant"], priority: 0.5 },
    });
    expect(old.value).not.toHaveProperty("ttlMs");
    const templates = encodeListResult(
      "resourceTemplates",
      list("resourceTemplates", [richTemplate()]),
      "2024-11-05",
    );
    expect(whats(templates)).toContain("resource template 'file:///notes/{name}' title");
    const prompts = encodeListResult("prompts", list("prompts", [richPrompt()]), "2025-03-26");
    expect(whats(prompts)).toEqual(
      expect.arrayContaining([
        "prompt 'review' title",
        "prompt 'review' argument 'diff' title",
        "prompt 'review' icons",
      ]),
    );
    expect(prompts.value.prompts[0]?.arguments?.[0]).toEqual({
      name: "diff",
      description: "The change",
      required: true,
    });
  });

  it("an unchanged list comes back as the same object with the same array", () => {
    const input = { tools: [{ name: "plain", inputSchema: { type: "object" as const } }] };
    const encoded = encodeListResult("tools", input, "2024-11-05");
    expect(encoded.value).toBe(input);
    expect(encoded.notes).toEqual([]);
  });
});
