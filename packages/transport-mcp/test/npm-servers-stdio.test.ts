import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BridgeTransport, Code, type Progress, TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpTransport, listUpstreamCatalog, type McpUpstream } from "../src/index.js";
import { mcpTarget, npmServerEntry, REPO_ROOT, resourceRead, texts, toolCall } from "./support/upstreams.js";

/** How a call the upstream refuses ends: an `isError` result, or the code of the error it rejects with. */
async function refusal(call: Promise<{ isError?: boolean }>): Promise<"isError" | Code> {
  try {
    const result = await call;
    expect(result.isError).toBe(true);
    return "isError";
  } catch (error) {
    expect(error).toBeInstanceOf(TrestleError);
    return (error as TrestleError).code;
  }
}

const everything: McpUpstream = {
  kind: "stdio",
  command: process.execPath,
  args: [npmServerEntry("server-everything"), "stdio"],
  cwd: REPO_ROOT,
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
    const reply = await transport.callTool(toolCall("get-sum", { a: 19, b: 23 }), target);
    expect(texts(reply).join(" ")).toContain("42");
    const refused = await refusal(transport.callTool(toolCall("get-sum", { a: "19", b: "23" }), target));
    expect(["isError", Code.InvalidArgument]).toContain(refused);
  });

  it("returns structured content as it is", async () => {
    const reply = await transport.callTool(
      toolCall("get-structured-content", { location: "Chicago" }),
      target,
    );
    expect(reply.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
  });

  it("passes a long-running operation's progress through", async () => {
    const progress: Progress[] = [];
    await transport.callTool(
      toolCall("trigger-long-running-operation", { duration: 0.3, steps: 3 }),
      target,
      {
        onProgress: (p) => progress.push(p),
      },
    );
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it("reads a text resource and a blob resource", async () => {
    const text = await transport.readResource(
      resourceRead("demo://resource/static/document/features.md"),
      target,
    );
    const [document] = text.contents;
    expect(document && "text" in document ? document.text.length : 0).toBeGreaterThan(10);
    const location = "demo://resource/dynamic/blob/1";
    const blob = await transport.readResource(resourceRead(location), target);
    expect(blob.contents[0]).toMatchObject({ uri: location, blob: expect.any(String) });
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
      cwd: REPO_ROOT,
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
    const reply = await transport.callTool(
      toolCall("read_text_file", { path: join(root, "lines.txt"), head: 1 }),
      target,
    );
    expect(reply.content).toEqual([{ type: "text", text: "one" }]);
    await refusal(
      transport.callTool(toolCall("read_text_file", { path: join(root, "lines.txt"), head: "1" }), target),
    );
  });

  it("returns an image file as an image block", async () => {
    const reply = await transport.callTool(
      toolCall("read_media_file", { path: join(root, "pixel.png") }),
      target,
    );
    expect(reply.content).toEqual([
      {
        type: "image",
        mimeType: "image/png",
        data: Buffer.from("89504e470d0a1a0a", "hex").toString("base64"),
      },
    ]);
  });

  it("reports a file outside its roots as an isError result, its directory (an argument) scrubbed", async () => {
    const result = await transport.callTool(toolCall("read_text_file", { path: "/etc/hostname" }), target);
    expect(result.isError).toBe(true);
    expect(texts(result).join(" ")).toContain("/etc/hostname");
    expect(JSON.stringify(result)).not.toContain(root);
  });
});
