import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { type BridgeTransport, Code } from "@trestle/core";
import { ResourceRequestSchema, ToolInvokeRequestSchema } from "@trestle/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMcpTransport,
  decodeResourceReply,
  decodeToolReply,
  listUpstreamCatalog,
  type McpProgress,
  type McpUpstream,
  withMcpCallListeners,
} from "../src/index.js";
import { mcpTarget, npmServerEntry, rejection, toolCall } from "./support/upstreams.js";

const everything: McpUpstream = {
  kind: "stdio",
  command: process.execPath,
  args: [npmServerEntry("server-everything"), "stdio"],
};

describe("@modelcontextprotocol/server-everything over stdio", () => {
  let transport: BridgeTransport;
  const target = mcpTarget("everything", "everything");

  beforeAll(() => {
    transport = createMcpTransport({ upstreamFor: () => everything });
  });
  afterAll(async () => {
    await transport.close();
  });

  it("lists its catalog: tools with full JSON Schemas, resources, templates and prompts", async () => {
    const catalog = await listUpstreamCatalog(everything);
    expect(catalog.serverInfo.name).toBe("mcp-servers/everything");
    expect(catalog.capabilities.resources).toBeDefined();
    const sum = catalog.tools.find((tool) => tool.name === "get-sum");
    expect(sum?.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(catalog.tools.find((tool) => tool.name === "get-structured-content")?.outputSchema).toBeDefined();
    expect(catalog.resources.map((r) => r.uri)).toContain("demo://resource/static/document/features.md");
    expect(catalog.resourceTemplates.map((t) => t.uriTemplate)).toContain(
      "demo://resource/dynamic/blob/{resourceId}",
    );
    expect(catalog.prompts.length).toBeGreaterThan(0);
  });

  it("calls a tool with numbers; the same call with the numbers as strings is refused", async () => {
    const reply = await transport.invokeTool(toolCall("get-sum", { a: 19, b: 23 }), target);
    expect(reply.content.join(" ")).toContain("42");
    const asStrings = create(ToolInvokeRequestSchema, {
      uri: "mcp://everything/tools/get-sum",
      arguments: { a: "19", b: "23" },
    });
    const error = await rejection(transport.invokeTool(asStrings, target));
    expect([Code.InvalidArgument, Code.Internal]).toContain(error.code);
  });

  it("returns structured content restorably", async () => {
    const reply = await transport.invokeTool(
      toolCall("get-structured-content", { location: "Chicago" }),
      target,
    );
    const decoded = decodeToolReply(reply.content);
    expect(decoded.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
  });

  it("passes a long-running operation's progress through", async () => {
    const progress: McpProgress[] = [];
    await withMcpCallListeners({ onProgress: (p) => progress.push(p) }, () =>
      transport.invokeTool(toolCall("trigger-long-running-operation", { duration: 0.3, steps: 3 }), target),
    );
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it("reads a text resource and a blob resource", async () => {
    const text = await transport.acquireResource(
      create(ResourceRequestSchema, { location: "demo://resource/static/document/features.md" }),
      target,
    );
    expect(text.content[0]?.length).toBeGreaterThan(10);
    const location = "demo://resource/dynamic/blob/1";
    const blob = await transport.acquireResource(create(ResourceRequestSchema, { location }), target);
    const [contents] = decodeResourceReply(blob.content, { uri: location });
    expect(contents).toMatchObject({ uri: location, blob: expect.any(String) });
  });
});

describe("@modelcontextprotocol/server-filesystem over stdio", () => {
  let root: string;
  let upstream: McpUpstream;
  let transport: BridgeTransport;
  const target = mcpTarget("files", "files");

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "trestle-mcp-fs-"));
    writeFileSync(join(root, "lines.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(root, "pixel.png"), Buffer.from("89504e470d0a1a0a", "hex"));
    upstream = {
      kind: "stdio",
      command: process.execPath,
      args: [npmServerEntry("server-filesystem"), root],
    };
    transport = createMcpTransport({ upstreamFor: () => upstream });
  });
  afterAll(async () => {
    await transport.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("advertises tools only: its catalog has no resources", async () => {
    const catalog = await listUpstreamCatalog(upstream);
    expect(catalog.capabilities.resources).toBeUndefined();
    expect(catalog.resources).toEqual([]);
    expect(catalog.tools.map((t) => t.name)).toContain("read_text_file");
  });

  it("reads the first line of a file with a numeric argument", async () => {
    const reply = await transport.invokeTool(
      toolCall("read_text_file", { path: join(root, "lines.txt"), head: 1 }),
      target,
    );
    expect(reply.content[0]).toBe("one");
    expect(decodeToolReply(reply.content).content).toEqual([{ type: "text", text: "one" }]);
    const asString = create(ToolInvokeRequestSchema, {
      uri: "mcp://files/tools/read_text_file",
      arguments: { path: join(root, "lines.txt"), head: "1" },
    });
    await rejection(transport.invokeTool(asString, target));
  });

  it("returns an image file as an image block", async () => {
    const reply = await transport.invokeTool(
      toolCall("read_media_file", { path: join(root, "pixel.png") }),
      target,
    );
    expect(decodeToolReply(reply.content).content).toEqual([
      {
        type: "image",
        mimeType: "image/png",
        data: Buffer.from("89504e470d0a1a0a", "hex").toString("base64"),
      },
    ]);
  });

  it("reports a file outside its roots as a tool error in one sentence", async () => {
    const error = await rejection(
      transport.invokeTool(toolCall("read_text_file", { path: "/etc/hostname" }), target),
    );
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toMatch(
      /^The tool 'read_text_file' of the MCP server 'node' reported an error: /,
    );
    expect(error.rawMessage).not.toContain("\n");
  });
});
