import { readFileSync } from "node:fs";
import type { TranslationNote } from "@trestle/core";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Encoded,
  encodeCallToolResult,
  encodeCompleteResult,
  encodeGetPromptResult,
  encodeImplementation,
  encodeNotification,
  encodePromptsList,
  encodeReadResourceResult,
  encodeResourcesList,
  encodeResourceTemplatesList,
  encodeResult,
  encodeServerCapabilities,
  encodeTool,
  encodeToolsList,
  isAtLeast,
  isMcpRevision,
  LATEST_MCP_REVISION,
  MCP_REVISIONS,
  type McpRevision,
  type WireCallToolResult,
  type WireContentBlock,
  type WireGetPromptResult,
  type WireImplementation,
  type WireListResult,
  type WireNotification,
  type WirePrompt,
  type WireReadResourceResult,
  type WireResource,
  type WireResourceTemplate,
  type WireTool,
} from "./revision-codec.js";

// ajv-formats is CommonJS: typed as its module object under NodeNext, its function at run time in some loaders.
type AddFormats = (ajv: Ajv | Ajv2020) => unknown;
const addFormats = ((addFormatsImport as unknown as { default?: AddFormats }).default ??
  addFormatsImport) as unknown as AddFormats;

/* ------------------------------------------------------------------------------------------ schema validation */

type Schema = Record<string, unknown>;

function loadSchema(revision: McpRevision): Schema {
  const url = new URL(`../../test/mcp-schemas/${revision}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Schema;
}

/**
 * The definitions whose objects the codec produces. The official schemas leave every object open (no
 * `additionalProperties: false`), so a field an older revision lacks still validates; the strict variant closes
 * these objects so the tests also catch a newer field passed through to an older client.
 */
const CLOSED_DEFINITIONS = [
  "Annotations",
  "TextContent",
  "ImageContent",
  "AudioContent",
  "EmbeddedResource",
  "ResourceLink",
  "TextResourceContents",
  "BlobResourceContents",
  "Icon",
  "Tool",
  "ToolAnnotations",
  "Resource",
  "ResourceTemplate",
  "Prompt",
  "PromptArgument",
  "PromptMessage",
  "Implementation",
  "CallToolResult",
  "GetPromptResult",
  "ReadResourceResult",
  "ListToolsResult",
  "ListResourcesResult",
  "ListResourceTemplatesResult",
  "ListPromptsResult",
  "CompleteResult",
  "ServerCapabilities",
  "ProgressNotification",
  "ProgressNotificationParams",
  "LoggingMessageNotification",
  "LoggingMessageNotificationParams",
  "ResourceUpdatedNotification",
  "ResourceUpdatedNotificationParams",
  "CancelledNotification",
  "CancelledNotificationParams",
  "ElicitationCompleteNotification",
  "SubscriptionsAcknowledgedNotification",
  "SubscriptionsAcknowledgedNotificationParams",
];
/** Inline objects inside a closed definition that are closed too (2024-11-05 inlines annotations and params). */
const CLOSED_INLINE = ["annotations", "params", "completion"];

/**
 * Closes an object schema; `alsoAllowed` are keys the revision allows there without listing them: every
 * revision's base Notification allows `_meta` in params (2024-11-05 inlines params without it), and older
 * schemas leave `jsonrpc` out of the notification itself.
 */
function close(definition: Schema, alsoAllowed: string[]): void {
  if (typeof definition.properties !== "object" || definition.additionalProperties !== undefined) return;
  const properties = definition.properties as Record<string, Schema>;
  for (const key of alsoAllowed) properties[key] ??= {};
  definition.additionalProperties = false;
}

function strictVariant(schema: Schema): Schema {
  const copy = structuredClone(schema);
  const definitions = (copy.definitions ?? copy.$defs) as Record<string, Schema>;
  for (const name of CLOSED_DEFINITIONS) {
    const definition = definitions[name];
    if (!definition) continue;
    close(
      definition,
      name.endsWith("NotificationParams") ? ["_meta"] : name.endsWith("Notification") ? ["jsonrpc"] : [],
    );
    const properties = (definition.properties ?? {}) as Record<string, Schema>;
    for (const inline of CLOSED_INLINE) {
      const nested = properties[inline];
      if (nested && !nested.$ref) close(nested, inline === "params" ? ["_meta"] : []);
    }
  }
  return copy;
}

interface RevisionValidators {
  check(definition: string, value: unknown): string[];
}

function validatorsFor(revision: McpRevision): { official: RevisionValidators; strict: RevisionValidators } {
  const schema = loadSchema(revision);
  const make = (document: Schema): RevisionValidators => {
    const modern = "$defs" in document;
    const ajv = modern
      ? new Ajv2020({ strict: false, allErrors: true })
      : new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, "mcp.json");
    const compiled = new Map<string, ValidateFunction>();
    return {
      check(definition, value) {
        let validate = compiled.get(definition);
        if (!validate) {
          validate = ajv.compile({ $ref: `mcp.json#/${modern ? "$defs" : "definitions"}/${definition}` });
          compiled.set(definition, validate);
        }
        if (validate(value)) return [];
        return (validate.errors ?? []).map(
          (e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
        );
      },
    };
  };
  return { official: make(schema), strict: make(strictVariant(schema)) };
}

const VALIDATORS = Object.fromEntries(MCP_REVISIONS.map((r) => [r, validatorsFor(r)])) as Record<
  McpRevision,
  ReturnType<typeof validatorsFor>
>;

/** Asserts `value` is valid against the revision's official schema and its closed variant. */
function expectValid(revision: McpRevision, definition: string, value: unknown): void {
  const { official, strict } = VALIDATORS[revision];
  expect(official.check(definition, value), `${revision} ${definition} (official schema)`).toEqual([]);
  expect(strict.check(definition, value), `${revision} ${definition} (closed objects)`).toEqual([]);
}

const NOTIFICATION_DEFINITIONS: Record<string, string> = {
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/cancelled": "CancelledNotification",
  "notifications/elicitation/complete": "ElicitationCompleteNotification",
  "notifications/tasks/status": "TaskStatusNotification",
  "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
};

/* ------------------------------------------------------------------------------------------ rich inputs */

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");
const WAV = Buffer.alloc(3000, 7).toString("base64");
const ICON = {
  src: "https://example.com/icon.png",
  mimeType: "image/png",
  sizes: ["48x48"],
  theme: "light" as const,
};
const ANNOTATIONS = { audience: ["user", "assistant"], priority: 0.5, lastModified: "2025-01-12T15:00:58Z" };

/** Every content type with every field it may carry (2026-07-28 shapes). */
function richContent(): WireContentBlock[] {
  return [
    { type: "text", text: "Sunny", annotations: { ...ANNOTATIONS }, _meta: { "com.example/trace": "t1" } },
    { type: "image", data: PNG, mimeType: "image/png", annotations: { audience: ["user"] } },
    {
      type: "audio",
      data: WAV,
      mimeType: "audio/wav",
      annotations: { priority: 1 },
      _meta: { "com.example/a": 1 },
    },
    {
      type: "resource",
      resource: {
        uri: "file:///notes/a.txt",
        mimeType: "text/plain",
        text: "A",
        _meta: { "com.example/r": true },
      },
      annotations: { ...ANNOTATIONS },
    },
    {
      type: "resource",
      resource: { uri: "file:///data/b.bin", mimeType: "application/octet-stream", blob: PNG },
    },
    {
      type: "resource_link",
      uri: "file:///reports/q3.pdf",
      name: "q3.pdf",
      title: "Q3 report",
      description: "Quarterly figures",
      mimeType: "application/pdf",
      size: 123456,
      icons: [ICON],
      annotations: { ...ANNOTATIONS },
      _meta: { "com.example/l": "x" },
    },
  ];
}

const SERVER_INFO = { name: "trestle", version: "0.1.0" };

function richCallToolResult(): WireCallToolResult {
  return {
    resultType: "complete",
    content: richContent(),
    structuredContent: { temperature: 21.5, unit: "C" },
    isError: false,
    _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO, "com.example/k": "v" },
  };
}

function richTool(): WireTool {
  return {
    name: "weather",
    title: "Weather",
    description: "Current weather for a city",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" }, units: { enum: ["metric", "imperial"] }, anything: true },
      required: ["city"],
    },
    outputSchema: {
      type: "object",
      properties: { temperature: { type: "number" } },
      required: ["temperature"],
    },
    annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true, destructiveHint: false },
    icons: [ICON],
    _meta: { "com.example/owner": "team-a" },
  };
}

/** A 2026-07-28 tool whose output schema describes an array: only 2026-07-28 can say that. */
function arrayOutputTool(): WireTool {
  return {
    name: "list-cities",
    inputSchema: { type: "object" },
    outputSchema: { type: "array", items: { type: "string" } },
  };
}

function richResource(): WireResource {
  return {
    uri: "file:///notes/a.txt",
    name: "a.txt",
    title: "Notes A",
    description: "First notes",
    mimeType: "text/plain",
    size: 1,
    annotations: { ...ANNOTATIONS },
    icons: [ICON],
    _meta: { "com.example/r": 1 },
  };
}

function richTemplate(): WireResourceTemplate {
  return {
    uriTemplate: "file:///notes/{name}",
    name: "notes",
    title: "Notes",
    description: "Any note",
    mimeType: "text/plain",
    annotations: { ...ANNOTATIONS },
    icons: [ICON],
    _meta: { "com.example/t": 1 },
  };
}

function richPrompt(): WirePrompt {
  return {
    name: "review",
    title: "Code review",
    description: "Review a change",
    arguments: [
      { name: "diff", title: "Diff", description: "The change", required: true },
      { name: "style", description: "Style guide" },
    ],
    icons: [ICON],
    _meta: { "com.example/p": 1 },
  };
}

function richGetPromptResult(): WireGetPromptResult {
  return {
    resultType: "complete",
    description: "A review",
    messages: richContent().map((content, index) => ({ role: index % 2 ? "assistant" : "user", content })),
  };
}

function richReadResourceResult(): WireReadResourceResult {
  return {
    resultType: "complete",
    ttlMs: 60_000,
    cacheScope: "public",
    contents: [
      { uri: "file:///notes/a.txt", mimeType: "text/plain", text: "A", _meta: { "com.example/r": 1 } },
      { uri: "file:///data/b.bin", mimeType: "application/octet-stream", blob: PNG },
    ],
  };
}

function richImplementation(): WireImplementation {
  return {
    name: "trestle",
    version: "0.1.0",
    title: "Trestle",
    description: "An MCP router",
    websiteUrl: "https://example.com/trestle",
    icons: [ICON],
  };
}

function richCapabilities() {
  return {
    tools: { listChanged: true },
    resources: { listChanged: true, subscribe: true },
    prompts: { listChanged: true },
    logging: {},
    completions: {},
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    extensions: { "io.modelcontextprotocol/tasks": {} },
  };
}

function list<K extends string, T>(key: K, items: T[]): WireListResult<K, T> {
  return {
    resultType: "complete",
    ttlMs: 5000,
    cacheScope: "public",
    nextCursor: "b2Zmc2V0",
    [key]: items,
  } as WireListResult<K, T>;
}

function richNotifications(): WireNotification[] {
  const subscription = { "io.modelcontextprotocol/subscriptionId": 7 };
  return [
    {
      method: "notifications/progress",
      params: { progressToken: "p1", progress: 2, total: 4, message: "Half way" },
    },
    { method: "notifications/message", params: { level: "info", logger: "forward", data: { msg: "hi" } } },
    {
      method: "notifications/resources/updated",
      params: { uri: "file:///notes/a.txt", _meta: subscription },
    },
    { method: "notifications/tools/list_changed", params: { _meta: subscription } },
    { method: "notifications/prompts/list_changed" },
    {
      method: "notifications/resources/list_changed",
      params: { _meta: { ...subscription, "com.example/x": 1 } },
    },
    { method: "notifications/cancelled", params: { requestId: 3, reason: "client went away" } },
    { method: "notifications/elicitation/complete", params: { elicitationId: "e1" } },
    {
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { toolsListChanged: true }, _meta: subscription },
    },
  ];
}

/* ------------------------------------------------------------------------------------------ helpers */

function whats(encoded: Encoded<unknown>): string[] {
  return encoded.notes.map((n) => n.what);
}

function noteFor(notes: readonly TranslationNote[], what: string): TranslationNote | undefined {
  return notes.find((n) => n.what === what);
}

const OLDER = MCP_REVISIONS.filter((r) => r !== LATEST_MCP_REVISION);

/* ------------------------------------------------------------------------------------------ tests */

describe("revision ordering", () => {
  it("lists the five revisions oldest first and orders them", () => {
    expect(MCP_REVISIONS).toEqual(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
    expect(LATEST_MCP_REVISION).toBe("2026-07-28");
    expect(isAtLeast("2025-06-18", "2025-03-26")).toBe(true);
    expect(isAtLeast("2025-06-18", "2025-06-18")).toBe(true);
    expect(isAtLeast("2025-03-26", "2025-06-18")).toBe(false);
    expect(isMcpRevision("2025-11-25")).toBe(true);
    expect(isMcpRevision("2025-11-26")).toBe(false);
    expect(isMcpRevision(20251125)).toBe(false);
  });

  it("refuses an unknown revision with a message naming the known ones", () => {
    expect(() => encodeCallToolResult({ content: [] }, "2099-01-01" as McpRevision)).toThrow(
      /Unknown MCP revision '2099-01-01'.*2024-11-05/,
    );
  });
});

describe.each(MCP_REVISIONS)("rich inputs encoded for %s", (revision) => {
  it("validate against the revision's schema", () => {
    expectValid(revision, "CallToolResult", encodeCallToolResult(richCallToolResult(), revision).value);
    const arrayResult = { ...richCallToolResult(), structuredContent: [1, 2, 3] };
    expectValid(revision, "CallToolResult", encodeCallToolResult(arrayResult, revision).value);
    expectValid(revision, "GetPromptResult", encodeGetPromptResult(richGetPromptResult(), revision).value);
    expectValid(
      revision,
      "ReadResourceResult",
      encodeReadResourceResult(richReadResourceResult(), revision).value,
    );
    expectValid(
      revision,
      "ListToolsResult",
      encodeToolsList(list("tools", [richTool(), arrayOutputTool()]), revision).value,
    );
    expectValid(
      revision,
      "ListResourcesResult",
      encodeResourcesList(list("resources", [richResource()]), revision).value,
    );
    expectValid(
      revision,
      "ListResourceTemplatesResult",
      encodeResourceTemplatesList(list("resourceTemplates", [richTemplate()]), revision).value,
    );
    expectValid(
      revision,
      "ListPromptsResult",
      encodePromptsList(list("prompts", [richPrompt()]), revision).value,
    );
    expectValid(revision, "Implementation", encodeImplementation(richImplementation(), revision).value);
    const completion = {
      resultType: "complete",
      completion: { values: ["a", "b"], total: 2, hasMore: false },
    };
    expectValid(revision, "CompleteResult", encodeCompleteResult(completion, revision).value);
  });

  it("validate the same inputs without the 2026-07-28 envelope fields", () => {
    const { resultType: _r, ttlMs: _t, cacheScope: _c, ...read } = richReadResourceResult();
    expectValid(revision, "ReadResourceResult", encodeReadResourceResult(read, revision).value);
    const { resultType: _r2, ...call } = richCallToolResult();
    expectValid(revision, "CallToolResult", encodeCallToolResult(call, revision).value);
    expectValid(revision, "ListToolsResult", encodeToolsList({ tools: [richTool()] }, revision).value);
  });

  it("validate every notification it sends", () => {
    for (const notification of richNotifications()) {
      const { value } = encodeNotification(notification, revision);
      if (!value) continue;
      const definition = NOTIFICATION_DEFINITIONS[value.method] as string;
      expectValid(revision, definition, { jsonrpc: "2.0", ...value });
    }
  });

  it("encode what they already encoded to the same object with no notes (a lossless input gets no notes)", () => {
    const cases: [(v: never, r: McpRevision) => Encoded<unknown>, unknown][] = [
      [encodeCallToolResult as never, richCallToolResult()],
      [encodeGetPromptResult as never, richGetPromptResult()],
      [encodeReadResourceResult as never, richReadResourceResult()],
      [encodeToolsList as never, list("tools", [richTool(), arrayOutputTool()])],
      [encodeResourcesList as never, list("resources", [richResource()])],
      [encodeResourceTemplatesList as never, list("resourceTemplates", [richTemplate()])],
      [encodePromptsList as never, list("prompts", [richPrompt()])],
      [encodeImplementation as never, richImplementation()],
    ];
    for (const [encode, input] of cases) {
      const once = encode(input as never, revision);
      const twice = encode(once.value as never, revision);
      expect(twice.value).toBe(once.value);
      expect(twice.notes).toEqual([]);
    }
    for (const notification of richNotifications()) {
      const once = encodeNotification(notification, revision);
      if (!once.value) continue;
      const twice = encodeNotification(once.value, revision);
      expect(twice.value).toBe(once.value);
      expect(twice.notes).toEqual([]);
    }
  });
});

describe("the newest revision", () => {
  it("passes rich 2026-07-28 input through as the same objects, with no notes", () => {
    const inputs: [(v: never, r: McpRevision) => Encoded<unknown>, unknown][] = [
      [encodeCallToolResult as never, richCallToolResult()],
      [encodeCallToolResult as never, { ...richCallToolResult(), structuredContent: [1, "two", null] }],
      [encodeGetPromptResult as never, richGetPromptResult()],
      [encodeReadResourceResult as never, richReadResourceResult()],
      [encodeToolsList as never, list("tools", [richTool(), arrayOutputTool()])],
      [encodeResourcesList as never, list("resources", [richResource()])],
      [encodeResourceTemplatesList as never, list("resourceTemplates", [richTemplate()])],
      [encodePromptsList as never, list("prompts", [richPrompt()])],
      [encodeImplementation as never, richImplementation()],
    ];
    for (const [encode, input] of inputs) {
      const encoded = encode(input as never, LATEST_MCP_REVISION);
      expect(encoded.value).toBe(input);
      expect(encoded.notes).toEqual([]);
    }
    for (const notification of richNotifications().filter(
      (n) => n.method !== "notifications/elicitation/complete",
    )) {
      const encoded = encodeNotification(notification, LATEST_MCP_REVISION);
      expect(encoded.value).toBe(notification);
      expect(encoded.notes).toEqual([]);
    }
  });

  it("adds resultType and the most conservative caching hints when the input lacks them, without notes", () => {
    const call = encodeCallToolResult({ content: [{ type: "text", text: "x" }] }, LATEST_MCP_REVISION);
    expect(call.value).toEqual({ resultType: "complete", content: [{ type: "text", text: "x" }] });
    expect(call.notes).toEqual([]);
    const tools = encodeToolsList({ tools: [] }, LATEST_MCP_REVISION);
    expect(tools.value).toEqual({ tools: [], resultType: "complete", ttlMs: 0, cacheScope: "private" });
    const kept = encodeReadResourceResult({ contents: [], ttlMs: 1000 }, LATEST_MCP_REVISION);
    expect(kept.value).toMatchObject({ ttlMs: 1000, cacheScope: "private" });
    expect(encodeResult({}, LATEST_MCP_REVISION).value).toEqual({ resultType: "complete" });
    const explicitUndefined = encodeResourcesList(
      { resources: [], resultType: undefined, ttlMs: undefined },
      LATEST_MCP_REVISION,
    );
    expectValid(LATEST_MCP_REVISION, "ListResourcesResult", explicitUndefined.value);
  });

  it("keeps an input_required result for 2026-07-28 and refuses it for a session-era revision", () => {
    const pending = { resultType: "input_required", inputRequests: {}, requestState: "s" };
    expect(encodeResult(pending, LATEST_MCP_REVISION).value).toBe(pending);
    expect(() => encodeResult(pending, "2025-11-25")).toThrow(/input_required.*2025-11-25/);
  });

  it("drops the 2025-11-25 tool execution field, noting it only when the tool requires tasks", () => {
    const optional = encodeTool(
      { ...richTool(), execution: { taskSupport: "optional" } },
      LATEST_MCP_REVISION,
    );
    expect(optional.value).not.toHaveProperty("execution");
    expect(optional.notes).toEqual([]);
    const required = encodeTool({ ...richTool(), execution: { taskSupport: "required" } }, "2025-06-18");
    expect(required.value).not.toHaveProperty("execution");
    expect(whats(required)).toContain("tool 'weather' execution");
    const kept = { ...richTool(), inputSchema: { type: "object" }, execution: { taskSupport: "required" } };
    expect(encodeTool(kept, "2025-11-25").value).toBe(kept);
    expectValid("2025-11-25", "Tool", kept);
  });
});

describe("downgrades of a tool result", () => {
  it("2024-11-05: audio and the resource link become text, structured content becomes JSON text", () => {
    const encoded = encodeCallToolResult(richCallToolResult(), "2024-11-05");
    const content = encoded.value.content;
    expect(content.map((b) => b.type)).toEqual([
      "text",
      "image",
      "text",
      "resource",
      "resource",
      "text",
      "text",
    ]);
    expect(content[2]?.text).toMatch(/Audio omitted \(audio\/wav, 2\.9 KB\)/);
    expect(content[2]?.annotations).toEqual({ priority: 1 });
    expect(content[5]?.text).toBe(
      "[Resource link: Q3 report (q3.pdf) <file:///reports/q3.pdf> (application/pdf, 120.6 KB) - Quarterly figures]",
    );
    expect(JSON.parse(content[6]?.text as string)).toEqual({ temperature: 21.5, unit: "C" });
    expect(encoded.value).not.toHaveProperty("structuredContent");
    expect(encoded.value).not.toHaveProperty("resultType");
    expect(encoded.value._meta).toEqual({ "com.example/k": "v" });
    expect(noteFor(encoded.notes, "content[2] (audio)")?.action).toBe("dropped");
    expect(noteFor(encoded.notes, "content[5] (resource_link)")?.action).toBe("rewritten");
    expect(noteFor(encoded.notes, "structuredContent")).toMatchObject({ action: "rewritten" });
    expect(noteFor(encoded.notes, "structuredContent")?.detail).toMatch(/content\[6\]/);
    expect(whats(encoded)).toEqual(
      expect.arrayContaining([
        "content[0] (text) _meta",
        "content[0] (text) annotations.lastModified",
        "content[3] (resource) annotations.lastModified",
        "content[3] (resource) resource._meta",
      ]),
    );
    // The input is not changed.
    expect(richCallToolResult()).toEqual(richCallToolResult());
  });

  it("2025-03-26: audio stays; the link and structured content are still rewritten", () => {
    const encoded = encodeCallToolResult(richCallToolResult(), "2025-03-26");
    expect(encoded.value.content[2]?.type).toBe("audio");
    expect(encoded.value.content[5]?.type).toBe("text");
    expect(whats(encoded)).not.toContain("content[2] (audio)");
    expect(whats(encoded)).toContain("content[5] (resource_link)");
    expect(whats(encoded)).toContain("structuredContent");
  });

  it("2025-06-18: only the link's icons are dropped", () => {
    const encoded = encodeCallToolResult(richCallToolResult(), "2025-06-18");
    expect(whats(encoded)).toEqual(["content[5] (resource_link) icons"]);
    expect(encoded.value.structuredContent).toEqual({ temperature: 21.5, unit: "C" });
    expect(encoded.value.content[5]).not.toHaveProperty("icons");
  });

  it("2025-11-25: nothing but the envelope changes", () => {
    const input = richCallToolResult();
    const encoded = encodeCallToolResult(input, "2025-11-25");
    expect(encoded.notes).toEqual([]);
    expect(encoded.value.content).toBe(input.content);
    expect(encoded.value).not.toHaveProperty("resultType");
  });

  it("does not duplicate structured content a text block already carries", () => {
    const structured = { a: 1, b: [true, null] };
    const input = {
      content: [{ type: "text", text: JSON.stringify(structured, null, 2) }],
      structuredContent: structured,
    };
    const encoded = encodeCallToolResult(input, "2025-03-26");
    expect(encoded.value).toEqual({ content: input.content });
    expect(noteFor(encoded.notes, "structuredContent")).toMatchObject({ action: "dropped" });
    expect(noteFor(encoded.notes, "structuredContent")?.detail).toMatch(/content\[0\]/);
  });

  it("2025-06-18 and 2025-11-25: non-object structured content becomes JSON text", () => {
    for (const revision of ["2025-06-18", "2025-11-25"] as const) {
      const encoded = encodeCallToolResult({ content: [], structuredContent: ["x", 2] }, revision);
      expect(encoded.value).toEqual({ content: [{ type: "text", text: '["x",2]' }] });
      expect(noteFor(encoded.notes, "structuredContent")?.detail).toMatch(/only a JSON object/);
    }
  });

  it("replaces a content type no revision defines in results", () => {
    const encoded = encodeCallToolResult(
      { content: [{ type: "tool_use", id: "1", name: "x", input: {} }] },
      LATEST_MCP_REVISION,
    );
    expect(encoded.value.content).toEqual([
      { type: "text", text: "[Content of type 'tool_use' omitted: MCP results cannot carry it.]" },
    ]);
    expect(whats(encoded)).toEqual(["content[0] (tool_use)"]);
  });

  it("translates a prompt message's single block the same way", () => {
    const encoded = encodeGetPromptResult(richGetPromptResult(), "2024-11-05");
    expect(encoded.value.messages[2]?.content.type).toBe("text");
    expect(encoded.value.messages[5]?.content.type).toBe("text");
    expect(whats(encoded)).toEqual(
      expect.arrayContaining(["messages[2].content (audio)", "messages[5].content (resource_link)"]),
    );
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
    const resources = encodeResourcesList(list("resources", [richResource()]), "2025-06-18");
    expect(whats(resources)).toEqual(["resource 'file:///notes/a.txt' icons"]);
    const old = encodeResourcesList(list("resources", [richResource()]), "2025-03-26");
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
    const templates = encodeResourceTemplatesList(list("resourceTemplates", [richTemplate()]), "2024-11-05");
    expect(whats(templates)).toContain("resource template 'file:///notes/{name}' title");
    const prompts = encodePromptsList(list("prompts", [richPrompt()]), "2025-03-26");
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

  it("serverInfo loses title before 2025-06-18 and description, websiteUrl, icons before 2025-11-25", () => {
    expect(whats(encodeImplementation(richImplementation(), "2025-06-18")).sort()).toEqual(
      ["serverInfo description", "serverInfo icons", "serverInfo websiteUrl"].sort(),
    );
    expect(encodeImplementation(richImplementation(), "2024-11-05").value).toEqual({
      name: "trestle",
      version: "0.1.0",
    });
  });

  it("an unchanged list comes back as the same object with the same array", () => {
    const input = { tools: [{ name: "plain", inputSchema: { type: "object" } }] };
    const encoded = encodeToolsList(input, "2024-11-05");
    expect(encoded.value).toBe(input);
    expect(encoded.notes).toEqual([]);
  });

  it("capabilities keep only what the revision defines, without notes", () => {
    const keys = (revision: McpRevision) =>
      Object.keys(encodeServerCapabilities(richCapabilities(), revision).value).sort();
    expect(keys("2024-11-05")).toEqual(["logging", "prompts", "resources", "tools"]);
    expect(keys("2025-06-18")).toEqual(["completions", "logging", "prompts", "resources", "tools"]);
    expect(keys("2025-11-25")).toEqual(["completions", "logging", "prompts", "resources", "tasks", "tools"]);
    expect(keys(LATEST_MCP_REVISION)).toEqual([
      "completions",
      "extensions",
      "logging",
      "prompts",
      "resources",
      "tools",
    ]);
    const plain = { tools: {} };
    expect(encodeServerCapabilities(plain, "2024-11-05")).toEqual({ value: plain, notes: [] });
  });

  it("cuts a completion to 100 values, noted as approximated", () => {
    const values = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const encoded = encodeCompleteResult({ completion: { values } }, LATEST_MCP_REVISION);
    expect(encoded.value.completion.values).toHaveLength(100);
    expect(encoded.value.completion.hasMore).toBe(true);
    expect(encoded.notes).toEqual([
      expect.objectContaining({ action: "approximated", what: "completion.values" }),
    ]);
    expectValid(LATEST_MCP_REVISION, "CompleteResult", encoded.value);
  });
});

describe("downgrades of notifications", () => {
  it("drops the progress message before 2025-03-26, noted", () => {
    const input = richNotifications()[0] as WireNotification;
    const encoded = encodeNotification(input, "2024-11-05");
    expect(encoded.value).toEqual({
      method: "notifications/progress",
      params: { progressToken: "p1", progress: 2, total: 4 },
    });
    expect(whats(encoded)).toEqual(["notifications/progress message"]);
    expect(encodeNotification(input, "2025-03-26").value).toBe(input);
  });

  it("withholds notifications a revision lacks, noted", () => {
    const complete = { method: "notifications/elicitation/complete", params: { elicitationId: "e1" } };
    expect(encodeNotification(complete, "2025-11-25").value).toBe(complete);
    for (const revision of ["2025-06-18", LATEST_MCP_REVISION] as const) {
      const encoded = encodeNotification(complete, revision);
      expect(encoded.value).toBeUndefined();
      expect(whats(encoded)).toEqual(["notifications/elicitation/complete"]);
    }
    const ack = { method: "notifications/subscriptions/acknowledged", params: { notifications: {} } };
    expect(encodeNotification(ack, "2025-11-25").value).toBeUndefined();
    const cancelled = { method: "notifications/cancelled", params: { reason: "task gone" } };
    expect(encodeNotification(cancelled, "2025-11-25").value).toBe(cancelled);
    expect(encodeNotification(cancelled, "2025-06-18").value).toBeUndefined();
  });

  it("removes the 2026-07-28 subscription id from older clients' notifications without a note", () => {
    const encoded = encodeNotification(
      {
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } },
      },
      "2025-11-25",
    );
    expect(encoded.value).toEqual({ method: "notifications/tools/list_changed", params: {} });
    expect(encoded.notes).toEqual([]);
  });

  it("passes an extension's notification unchanged", () => {
    const tasks = { method: "notifications/tasks", params: { taskId: "t1", status: "working" } };
    expect(encodeNotification(tasks, LATEST_MCP_REVISION).value).toBe(tasks);
  });
});

/* ------------------------------------------------------------------------------------------ property test */

const uri = fc.webUrl({ withQueryParameters: false, withFragments: false });
const base64 = fc.uint8Array({ minLength: 0, maxLength: 64 }).map((b) => Buffer.from(b).toString("base64"));
const annotations = fc.record(
  {
    audience: fc.subarray(["user", "assistant"]),
    priority: fc.double({ min: 0, max: 1, noNaN: true }),
    lastModified: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  },
  { requiredKeys: [] },
);
const meta = fc.dictionary(fc.constantFrom("com.example/a", "com.example/b", "trace"), fc.jsonValue(), {
  maxKeys: 2,
});
const base = { annotations, _meta: meta };
const block: fc.Arbitrary<WireContentBlock> = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string(), ...base }, { requiredKeys: ["type", "text"] }),
  fc.record(
    {
      type: fc.constant("image"),
      data: base64,
      mimeType: fc.constantFrom("image/png", "image/jpeg"),
      ...base,
    },
    { requiredKeys: ["type", "data", "mimeType"] },
  ),
  fc.record(
    {
      type: fc.constant("audio"),
      data: base64,
      mimeType: fc.constantFrom("audio/wav", "audio/mpeg"),
      ...base,
    },
    { requiredKeys: ["type", "data", "mimeType"] },
  ),
  fc.record(
    {
      type: fc.constant("resource"),
      resource: fc.oneof(
        fc.record(
          { uri, text: fc.string(), mimeType: fc.constant("text/plain"), _meta: meta },
          { requiredKeys: ["uri", "text"] },
        ),
        fc.record({ uri, blob: base64, _meta: meta }, { requiredKeys: ["uri", "blob"] }),
      ),
      ...base,
    },
    { requiredKeys: ["type", "resource"] },
  ),
  fc.record(
    {
      type: fc.constant("resource_link"),
      uri,
      name: fc.string({ minLength: 1 }),
      title: fc.string(),
      description: fc.string(),
      mimeType: fc.constantFrom("application/pdf", "text/plain"),
      size: fc.nat(),
      icons: fc.array(fc.record({ src: uri }), { maxLength: 2 }),
      ...base,
    },
    { requiredKeys: ["type", "uri", "name"] },
  ),
);
const toolResult: fc.Arbitrary<WireCallToolResult> = fc.record(
  {
    content: fc.array(block, { maxLength: 6 }),
    structuredContent: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), fc.jsonValue()),
    isError: fc.boolean(),
    resultType: fc.constant("complete"),
  },
  { requiredKeys: ["content", "resultType"] },
);

describe("random combinations of content blocks", () => {
  it("encode valid for every revision, note every changed block, and pass unchanged at the newest", () => {
    fc.assert(
      fc.property(toolResult, fc.constantFrom(...MCP_REVISIONS), (input, revision) => {
        const snapshot = structuredClone(input);
        const encoded = encodeCallToolResult(input, revision);
        expectValid(revision, "CallToolResult", encoded.value);
        expect(input).toEqual(snapshot);

        // Every block that did not arrive as it was has a note naming its index.
        input.content.forEach((original, index) => {
          if (encoded.value.content[index] !== original) {
            expect(whats(encoded).some((w) => w.startsWith(`content[${index}] `))).toBe(true);
          }
        });
        // Structured content that did not arrive is noted, and its JSON is in a text block.
        if (input.structuredContent !== undefined && !("structuredContent" in encoded.value)) {
          expect(whats(encoded)).toContain("structuredContent");
          const texts = encoded.value.content.filter((b) => b.type === "text").map((b) => b.text as string);
          expect(
            texts.some((t) => {
              try {
                return JSON.stringify(JSON.parse(t)) === JSON.stringify(input.structuredContent);
              } catch {
                return false;
              }
            }),
          ).toBe(true);
        }
        // Nothing beyond a structured-content text block is added, nothing is lost.
        expect(encoded.value.content.length - input.content.length).toBeLessThanOrEqual(1);
        expect(encoded.value.content.length).toBeGreaterThanOrEqual(input.content.length);

        if (revision === LATEST_MCP_REVISION) {
          expect(encoded.value).toBe(input);
          expect(encoded.notes).toEqual([]);
        }
        // What is already in the revision's shape encodes to itself, with no notes.
        const again = encodeCallToolResult(encoded.value, revision);
        expect(again.value).toBe(encoded.value);
        expect(again.notes).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("older revisions never receive a content type they lack", () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), fc.constantFrom(...OLDER), (content, revision) => {
        const types = encodeCallToolResult({ content }, revision).value.content.map((b) => b.type);
        if (!isAtLeast(revision, "2025-03-26")) expect(types).not.toContain("audio");
        if (!isAtLeast(revision, "2025-06-18")) expect(types).not.toContain("resource_link");
      }),
      { numRuns: 200 },
    );
  });
});
