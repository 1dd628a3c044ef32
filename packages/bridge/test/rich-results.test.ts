import type { ContentBlock, JsonObject, ToolReference } from "@trestle/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInvokerBridge, createResourceBridge } from "../src/index.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness;

beforeEach(() => {
  harness = createHarness();
});
afterEach(async () => {
  await harness.close();
});

const tool: ToolReference = { name: "draw", type: "upstream", uri: "upstream://draw" };

const blocks: ContentBlock[] = [
  { type: "text", text: "here it is", annotations: { audience: ["user"], priority: 0.5 } },
  { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
  { type: "audio", data: "UklGRg==", mimeType: "audio/wav", _meta: { seconds: 1 } },
  { type: "resource_link", uri: "file:///out/a.png", name: "a.png", mimeType: "image/png", size: 8 },
  { type: "resource", resource: { uri: "file:///out/a.txt", mimeType: "text/plain", text: "hello" } },
];

describe("results of a transport that speaks MCP's content model", () => {
  it("reach the caller as they are, with their JSON arguments as the client sent them", async () => {
    let received: JsonObject | undefined;
    harness.serveNeutral(
      {
        callTool(call) {
          received = call.arguments;
          return { content: blocks, structuredContent: { width: 2, tags: ["x"] }, _meta: { upstream: "u1" } };
        },
      },
      { serviceName: "upstream", serviceType: "multi-capability" },
    );
    const bridge = createInvokerBridge(harness.deps);
    const result = await bridge.execute({ a: 1, b: [true], c: { d: null } }, tool, { requestId: "9" });
    expect(result).toEqual({
      content: blocks,
      structuredContent: { width: 2, tags: ["x"] },
      _meta: { upstream: "u1" },
    });
    expect(received).toEqual({ a: 1, b: [true], c: { d: null } });
    // No block went through a string encoding: none is a text block that holds another block's JSON.
    for (const block of result.content) {
      if (block.type === "text") expect(block.text).toBe("here it is");
    }
    expect(harness.events.map((e) => e.type)).toEqual(["started", "completed"]);
  });

  it("record a result the tool marks as an error as a failed call, and return it as it is", async () => {
    harness.serveNeutral(
      { callTool: () => ({ content: [{ type: "text", text: "no such city" }], isError: true }) },
      { serviceName: "upstream", serviceType: "tool-invoker" },
    );
    const result = await createInvokerBridge(harness.deps).execute({}, tool);
    expect(result).toEqual({ content: [{ type: "text", text: "no such city" }], isError: true });
    expect(harness.events.map((e) => e.type)).toEqual(["started", "failed"]);
    expect(harness.events[1]).toMatchObject({
      errorCategory: "execution_error",
      errorMessage: "no such city",
    });
  });

  it("read resources as blobs and texts at the URIs the transport gives", async () => {
    harness.serveNeutral(
      {
        readResource: (read) => ({
          contents: [
            { uri: `${read.uri}#blob`, mimeType: "image/png", blob: "iVBORw0KGgo=" },
            { uri: read.uri, text: "caption" },
          ],
        }),
      },
      { serviceName: "upstream", serviceType: "multi-capability" },
    );
    const resources = createResourceBridge(harness.deps);
    const contents = await resources.read({ name: "r", type: "upstream", location: "up://r" }, "up://r");
    expect(contents).toEqual([
      { uri: "up://r#blob", mimeType: "image/png", blob: "iVBORw0KGgo=" },
      { uri: "up://r", text: "caption" },
    ]);
  });
});
