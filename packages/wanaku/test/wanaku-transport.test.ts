import { create } from "@bufbuild/protobuf";
import {
  createContextValues,
  createInMemoryNetwork,
  createInMemoryTransport,
  type ToolReference,
  toolCallParts,
  toolCallPartsKey,
} from "@trestle/core";
import { describeTransportContract } from "@trestle/core/testing";
import {
  ExecutionStatus,
  OutputType,
  PayloadType,
  type ProvisionRequest,
  ToolInvokeReplySchema,
  type ToolInvokeRequest,
} from "@trestle/proto";
import { describe, expect, it } from "vitest";
import type { CapabilityHandlers } from "../src/index.js";
import {
  fromCapabilityHandlers,
  fromWanakuTransport,
  type WanakuTransport,
  wanakuHandlers,
} from "../src/index.js";

const network = createInMemoryNetwork();

// The whole kit through the Wanaku mapping both ways: neutral call → Wanaku request → neutral call → reference.
describeTransportContract({
  name: "in-memory transport through the Wanaku contract",
  createTransport: () => createInMemoryTransport({ network }),
  serve: (handlers) => network.serve(fromCapabilityHandlers(wanakuHandlers(handlers))),
  deadTarget: () => ({
    id: "dead",
    serviceName: "dead",
    host: "in-memory",
    port: 65_000,
    serviceType: "tool-invoker",
  }),
});

describe("a neutral call on the Wanaku wire", () => {
  const provisions: ProvisionRequest[] = [];
  const wanaku: CapabilityHandlers = {
    toolInvoker: (request) => ({ content: [JSON.stringify(request)] }),
    resourceAcquirer: (request) => ({
      content: [request.location, JSON.stringify(request.params), request.requestId],
    }),
    async *codeExecutor(request) {
      yield { outputType: OutputType.STATUS, status: ExecutionStatus.PENDING };
      yield { content: [request.code], outputType: OutputType.STDOUT, status: ExecutionStatus.RUNNING };
      yield { outputType: OutputType.COMPLETION, status: ExecutionStatus.COMPLETED, exitCode: 0 };
    },
    provisioner(request) {
      provisions.push(request);
      return { configurationUri: "c://x", secretUri: "s://x" };
    },
  };
  const { target } = network.serve(fromCapabilityHandlers(wanaku));
  const transport = createInMemoryTransport({ network });

  it("is the request the contract prescribes, and the reply comes back as text blocks", async () => {
    const tool: ToolReference = {
      name: "echo",
      type: "svc",
      uri: "echo://tool/{id}",
      configurationURI: "file:///c",
      inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } },
    };
    const result = await transport.callTool(
      { tool, arguments: { id: 42, wanaku_meta_trace: "t1", wanaku_body: { q: 1 }, gone: null } },
      target,
      { requestId: "r-1" },
    );
    const seen = JSON.parse(result.content[0]?.type === "text" ? result.content[0].text : "{}");
    expect(seen).toMatchObject({
      uri: "echo://tool/{id}",
      body: '{"q":1}',
      arguments: { id: "42", wanaku_body: '{"q":1}' },
      headers: { trace: "t1" },
      configurationUri: "file:///c",
      requestId: "r-1",
    });
    expect(seen.arguments).not.toHaveProperty("gone");
  });

  it("reads a resource with the URI asked for and the read's params", async () => {
    const result = await transport.readResource(
      {
        resource: { location: "file:///{name}", type: "file", name: "a", mimeType: "text/plain" },
        uri: "file:///x",
        params: { name: "x" },
      },
      target,
      { requestId: "r-2" },
    );
    expect(result.contents).toEqual([
      { uri: "file:///x", mimeType: "text/plain", text: "file:///x" },
      { uri: "file:///x", mimeType: "text/plain", text: '{"name":"x"}' },
      { uri: "file:///x", mimeType: "text/plain", text: "r-2" },
    ]);
  });

  it("decodes Base64 code and streams the engine's replies as outputs", async () => {
    const outputs = [];
    const code = Buffer.from("print(1)").toString("base64");
    for await (const output of transport.executeCode({ engineType: "e", language: "l", code }, target)) {
      outputs.push(output);
    }
    expect(outputs).toEqual([
      { type: "status", status: "pending" },
      { type: "output", stream: "stdout", text: "print(1)" },
      { type: "exit", status: "completed", exitCode: 0 },
    ]);
  });

  it("provisions configuration and secrets as BUILTIN payloads named after the tool", async () => {
    await transport.provision(
      { name: "weather", configurationData: "units=metric", secretsData: "apiKey=s3cr3t" },
      target,
    );
    expect(provisions.at(-1)).toMatchObject({
      uri: "",
      configuration: { type: PayloadType.BUILTIN, name: "weather", payload: "units=metric" },
      secret: { type: PayloadType.BUILTIN, name: "weather", payload: "apiKey=s3cr3t" },
    });
  });
});

describe("the parts of a call split once", () => {
  const seen: ToolInvokeRequest[] = [];
  const wanaku = {
    async invokeTool(request: ToolInvokeRequest) {
      seen.push(request);
      return create(ToolInvokeReplySchema, { content: ["ok"] });
    },
  } as unknown as WanakuTransport;
  const transport = fromWanakuTransport(wanaku);
  const target = { id: "t", serviceName: "s", host: "h", port: 1, serviceType: "tool-invoker" } as const;
  const tool: ToolReference = { name: "echo", type: "svc", uri: "echo://x" };

  it("uses the parts the caller split for these arguments and this tool, and splits anew for others", async () => {
    const args = { city: "Oslo" };
    const split = toolCallParts(args, tool);
    // Parts that could not come from these arguments show which split the request was built from.
    const marked = { ...split, arguments: { city: "split by the caller" } };
    const contextValues = createContextValues().set(toolCallPartsKey, {
      arguments: args,
      tool,
      parts: marked,
    });
    await transport.callTool({ tool, arguments: args }, target, { contextValues });
    expect(seen.at(-1)?.arguments).toEqual({ city: "split by the caller" });
    // An interceptor replaced the arguments: the request is built from the call as it is now.
    await transport.callTool({ tool, arguments: { city: "Bergen" } }, target, { contextValues });
    expect(seen.at(-1)?.arguments).toEqual({ city: "Bergen" });
    await transport.callTool({ tool: { ...tool }, arguments: args }, target, { contextValues });
    expect(seen.at(-1)?.arguments).toEqual({ city: "Oslo" });
  });
});
