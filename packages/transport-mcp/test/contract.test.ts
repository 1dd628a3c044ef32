import {
  type BridgeTransport,
  Code,
  createContextValues,
  type TranslationLeg,
  translationRecorderKey,
} from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpTransport, type McpUpstream } from "../src/index.js";
import {
  fixtureUpstream,
  freePort,
  mcpTarget,
  resourceRead as read,
  rejection,
  texts,
  toolCall,
} from "./support/upstreams.js";

describe("MCP transport contract over stdio (fixture server)", () => {
  let transport: BridgeTransport;
  const target = mcpTarget();
  const upstream = fixtureUpstream();

  beforeAll(() => {
    transport = createMcpTransport({ upstreamFor: (t) => (t.id === target.id ? upstream : undefined) });
  });
  afterAll(async () => {
    await transport.close();
  });

  it("sends the call's JSON arguments with their original types", async () => {
    const args = { n: 1.5, i: 7, b: false, s: "1", nil: null, list: [1, "two"], obj: { deep: { x: true } } };
    const reply = await transport.callTool(toolCall("describe_args", args), target);
    expect(JSON.parse(texts(reply)[0] ?? "")).toEqual({
      args,
      types: {
        n: "number",
        i: "number",
        b: "boolean",
        s: "string",
        nil: "null",
        list: "array",
        obj: "object",
      },
    });
  });

  it("returns every content block, and structured content, as the upstream sent them", async () => {
    const reply = await transport.callTool(toolCall("mixed"), target);
    expect(reply).toEqual({
      content: [
        { type: "text", text: "plain" },
        { type: "text", text: "annotated", annotations: { priority: 1 } },
        { type: "image", data: Buffer.from("png-bytes").toString("base64"), mimeType: "image/png" },
        { type: "resource_link", uri: "fixture://text", name: "text" },
        {
          type: "resource",
          resource: { uri: "fixture://blob", mimeType: "application/octet-stream", blob: "AAEC" },
        },
      ],
      structuredContent: { answer: 42, nested: { ok: true } },
    });
  });

  it("reports its leg: MCP tools/call in the revision the upstream negotiated, one frozen leg for every call", async () => {
    const legs: TranslationLeg[] = [];
    const contextValues = createContextValues().set(translationRecorderKey, {
      client: { protocol: "a2a", version: "1.0", method: "SendMessage" },
      backend: (leg) => legs.push(leg),
      note: () => undefined,
    });
    await transport.callTool(toolCall("describe_args"), target, { contextValues });
    await transport.callTool(toolCall("describe_args"), target, { contextValues });
    const last = legs.at(-1);
    expect(last).toMatchObject({ protocol: "mcp", method: "tools/call" });
    expect(last?.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(legs[1]).toBe(last);
    expect(Object.isFrozen(last)).toBe(true);
  });

  it("returns an isError result as the upstream sent it", async () => {
    const reply = await transport.callTool(toolCall("fail", { message: "disk\nis full." }), target);
    expect(reply).toEqual({ content: [{ type: "text", text: "disk\nis full." }], isError: true });
  });

  it.each([
    [-32602, Code.InvalidArgument],
    [-32601, Code.Unimplemented],
    [-32002, Code.NotFound],
    [-32603, Code.Internal],
  ])("maps JSON-RPC error %i to code %i with the upstream's text", async (jsonRpcCode, code) => {
    const error = await rejection(
      transport.callTool(toolCall("jsonrpc_error", { code: jsonRpcCode, message: "nope" }), target),
    );
    expect(error.code).toBe(code);
    expect(error.rawMessage).toBe(
      `The MCP server 'node' answered tools/call with error ${jsonRpcCode}: nope`,
    );
    // The upstream's own code as a typed detail, for a front that answers in MCP; no metadata key by name.
    expect(error.findDetail("json-rpc")).toEqual({ type: "json-rpc", protocol: "mcp", code: jsonRpcCode });
    expect(error.metadata).toEqual({});
  });

  it("reads text and blob resources as the upstream sent them", async () => {
    expect((await transport.readResource(read("fixture://text"), target)).contents).toEqual([
      expect.objectContaining({ uri: "fixture://text", text: "hello resource" }),
    ]);
    const blob = await transport.readResource(read("fixture://blob"), target);
    expect(blob.contents).toEqual([
      { uri: "fixture://blob", mimeType: "application/octet-stream", blob: "AAEC" },
    ]);
  });

  it("keeps the URI of every content of a templated resource", async () => {
    const reply = await transport.readResource(read("fixture://item/9"), target);
    expect(reply.contents).toEqual([
      { uri: "fixture://item/9", text: "item 9" },
      { uri: "fixture://item/9/extra", text: "another uri" },
    ]);
  });

  it("answers an unknown resource with NotFound", async () => {
    const error = await rejection(transport.readResource(read("fixture://missing"), target));
    expect(error.code).toBe(Code.NotFound);
    expect(error.rawMessage).toContain("resources/read with error -32002");
  });

  it("refuses executeCode and provision as Unimplemented, naming the method", async () => {
    const stream = transport.executeCode({ engineType: "e", language: "l", code: "" }, target);
    const iterator = stream[Symbol.asyncIterator]();
    const execError = await rejection(iterator.next());
    expect(execError.code).toBe(Code.Unimplemented);
    expect(execError.rawMessage).toContain("no counterpart of executeCode");
    const provisionError = await rejection(
      transport.provision({ name: "t", configurationData: "{}", secretsData: "{}" }, target),
    );
    expect(provisionError.code).toBe(Code.Unimplemented);
    expect(provisionError.rawMessage).toContain("no counterpart of provision");
  });

  it("probes health with ping", async () => {
    expect(await transport.probeHealth(target)).toEqual({ state: "healthy" });
  });

  it("fails a target with no upstream with NotFound, and a malformed tool URI with InvalidArgument", async () => {
    const unknown = await rejection(transport.callTool(toolCall("echo"), mcpTarget("unknown", "nothing")));
    expect(unknown.code).toBe(Code.NotFound);
    expect(unknown.rawMessage).toContain("'nothing'");
    const badUri = await rejection(
      transport.callTool(
        { tool: { name: "echo", type: "fixture", uri: "http://x/echo" }, arguments: {} },
        target,
      ),
    );
    expect(badUri.code).toBe(Code.InvalidArgument);
  });
});

describe("MCP transport health and lifecycle", () => {
  it("reports down for a server that cannot start and for an HTTP server that cannot be reached", async () => {
    const port = await freePort();
    const upstreams: Record<string, McpUpstream> = {
      missing: { kind: "stdio", command: "/nonexistent/mcp-server" },
      unreachable: { kind: "http", url: `http://127.0.0.1:${port}/mcp` },
    };
    const transport = createMcpTransport({ upstreamFor: (t) => upstreams[t.id] });
    try {
      const missing = await transport.probeHealth(mcpTarget("missing"));
      expect(missing).toEqual({
        state: "down",
        message: "The MCP server 'mcp-server' could not be started: the program was not found",
      });
      const unreachable = await transport.probeHealth(mcpTarget("unreachable"));
      expect(unreachable).toEqual({
        state: "down",
        message: `The MCP server at http://127.0.0.1:${port} could not be reached (connection refused)`,
      });
    } finally {
      await transport.close();
    }
  });

  it("rejects calls with Unavailable once closed", async () => {
    const transport = createMcpTransport({ upstreamFor: () => fixtureUpstream() });
    await transport.close();
    const error = await rejection(transport.callTool(toolCall("echo", { text: "x" }), mcpTarget()));
    expect(error.code).toBe(Code.Unavailable);
    await transport.close();
  });

  it("uses Streamable HTTP at http://host:port/mcp of the target when no upstreamFor is given", async () => {
    const transport = createMcpTransport();
    const port = await freePort();
    try {
      const error = await rejection(
        transport.callTool(toolCall("echo"), { ...mcpTarget(), host: "127.0.0.1", port }),
      );
      expect(error.code).toBe(Code.Unavailable);
      expect(error.rawMessage).toBe(
        `The MCP server at http://127.0.0.1:${port} could not be reached (connection refused)`,
      );
    } finally {
      await transport.close();
    }
  });
});
