import type { TranslationNote } from "@trestle/core";
import type { Encoded } from "../../src/mcp/wire/encoded.js";
import type {
  ListedItems,
  ListKey,
  McpCallToolResult,
  McpContentBlock,
  McpGetPromptResult,
  McpImplementation,
  McpListResult,
  McpNotification,
  McpPrompt,
  McpReadResourceResult,
  McpResource,
  McpResourceTemplate,
  McpServerCapabilities,
  McpTool,
} from "../../src/mcp/wire/types.js";

/** Inputs in the newest (2026-07-28) shapes with every field each may carry, for the encoders' tests. */

export const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");
const WAV = Buffer.alloc(3000, 7).toString("base64");
const ICON = {
  src: "https://example.com/icon.png",
  mimeType: "image/png",
  sizes: ["48x48"],
  theme: "light" as const,
};
const ANNOTATIONS = {
  audience: ["user" as const, "assistant" as const],
  priority: 0.5,
  lastModified: "2025-01-12T15:00:58Z",
};

export const SERVER_INFO = { name: "trestle", version: "0.1.0" };

/** Every content type with every field it may carry. */
export function richContent(): McpContentBlock[] {
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

export function richCallToolResult(): McpCallToolResult {
  return {
    resultType: "complete",
    content: richContent(),
    structuredContent: { temperature: 21.5, unit: "C" },
    isError: false,
    _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO, "com.example/k": "v" },
  };
}

export function richTool(): McpTool {
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
export function arrayOutputTool(): McpTool {
  return {
    name: "list-cities",
    inputSchema: { type: "object" },
    outputSchema: { type: "array", items: { type: "string" } },
  };
}

export function richResource(): McpResource {
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

export function richTemplate(): McpResourceTemplate {
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

export function richPrompt(): McpPrompt {
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

export function richGetPromptResult(): McpGetPromptResult {
  return {
    resultType: "complete",
    description: "A review",
    messages: richContent().map((content, index) => ({ role: index % 2 ? "assistant" : "user", content })),
  };
}

export function richReadResourceResult(): McpReadResourceResult {
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

export function richImplementation(): McpImplementation {
  return {
    name: "trestle",
    version: "0.1.0",
    title: "Trestle",
    description: "An MCP router",
    websiteUrl: "https://example.com/trestle",
    icons: [ICON],
  };
}

export function richCapabilities(): McpServerCapabilities {
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

/** A page of list `key` holding `items`, with the 2026-07-28 envelope. */
export function list<K extends ListKey>(key: K, items: ListedItems[K][]): McpListResult<K> {
  const page: McpListResult<K> = { ...({} as McpListResult<K>), [key]: items };
  page.resultType = "complete";
  page.ttlMs = 5000;
  page.cacheScope = "public";
  page.nextCursor = "b2Zmc2V0";
  return page;
}

export function richNotifications(): McpNotification[] {
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

/** What each note of `encoded` is about. */
export function whats(encoded: Encoded<unknown>): string[] {
  return encoded.notes.map((n) => n.what);
}

/** The note about `what`. */
export function noteFor(notes: readonly TranslationNote[], what: string): TranslationNote | undefined {
  return notes.find((n) => n.what === what);
}
