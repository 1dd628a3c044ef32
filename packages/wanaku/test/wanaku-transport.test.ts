import { create } from "@bufbuild/protobuf";
import {
  createContextValues,
  type ToolReference,
  type TranslationLeg,
  translationRecorderKey,
} from "@trestle/core";
import { createInMemoryNetwork, createInMemoryTransport } from "@trestle/core/in-memory";
import { describeTransportContract } from "@trestle/core/testing";
import {
  CodeExecutionReplySchema,
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
  expresses: { reportsLeg: false },
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

describe("a Wanaku transport applies the contract's rules to its own calls", () => {
  const seen: ToolInvokeRequest[] = [];
  const wanaku = {
    protocol: "grpc",
    async invokeTool(request: ToolInvokeRequest) {
      seen.push(request);
      return create(ToolInvokeReplySchema, { content: ["ok"] });
    },
    async *executeCode() {
      yield create(CodeExecutionReplySchema, {
        outputType: OutputType.COMPLETION,
        status: ExecutionStatus.COMPLETED,
      });
    },
  } as unknown as WanakuTransport;
  const transport = fromWanakuTransport(wanaku);
  const target = { id: "t", serviceName: "s", host: "h", port: 1, serviceType: "tool-invoker" } as const;
  const tool: ToolReference = { name: "echo", type: "svc", uri: "echo://x" };

  it("builds the request from the parts it described the call with, and splits anew a call changed since", async () => {
    const args: { city: string } = { city: "Oslo" };
    const call = { tool, arguments: args };
    transport.describeToolCall?.(call, target);
    // Changed in place after the description (the same objects): the request still says what was described,
    // which shows it was built from the kept parts rather than split again.
    args.city = "changed in place";
    await transport.callTool(call, target);
    expect(seen.at(-1)?.arguments).toEqual({ city: "Oslo" });
    // Kept for one call only: the next call of the same object is split anew.
    await transport.callTool(call, target);
    expect(seen.at(-1)?.arguments).toEqual({ city: "changed in place" });
    // An interceptor replaced the arguments: the request is built from the call as it is now.
    transport.describeToolCall?.(call, target);
    const replaced = { ...call, arguments: { city: "Bergen" } };
    await transport.callTool(replaced, target);
    expect(seen.at(-1)?.arguments).toEqual({ city: "Bergen" });
    // The same call object with other arguments than it was described with is split anew too.
    const same = { tool, arguments: { city: "Tromsø" } };
    transport.describeToolCall?.(same, target);
    same.arguments = { city: "Bodø" };
    await transport.callTool(same, target);
    expect(seen.at(-1)?.arguments).toEqual({ city: "Bodø" });
  });

  it("describes the secret values of its headers and body, and records the request as Wanaku sends it", () => {
    const description = transport.describeToolCall?.(
      {
        tool: {
          ...tool,
          inputSchema: {
            type: "object",
            properties: {
              wanaku_body: { type: "string" },
              "X-Api-Key": { target: "header", scope: "service", value: "default-key-77" },
            },
          },
        },
        arguments: {
          city: "Oslo",
          wanaku_meta_Trace: "t-1",
          wanaku_auth_Tenant: "tenant-secret-1",
          wanaku_body: { user: "al", client_secret: "body-secret-2" },
        },
      },
      target,
    );
    expect(description?.secretValues).toEqual(
      expect.arrayContaining(["tenant-secret-1", "default-key-77", "body-secret-2"]),
    );
    expect(description?.record()).toEqual({
      arguments: { city: "Oslo", wanaku_body: '{"user":"al","client_secret":"[REDACTED]"}' },
      headers: { Trace: "t-1", "X-Api-Key": "[REDACTED]", Tenant: "[REDACTED]" },
      body: '{"user":"al","client_secret":"[REDACTED]"}',
    });
  });

  it("reports its own leg, frozen and the same for every call, on tool calls and code executions", async () => {
    const legs: TranslationLeg[] = [];
    const contextValues = createContextValues().set(translationRecorderKey, {
      client: { protocol: "mcp", method: "tools/call" },
      backend: (leg) => legs.push(leg),
      note: () => undefined,
    });
    await transport.callTool({ tool, arguments: {} }, target, { contextValues });
    await transport.callTool({ tool, arguments: {} }, target, { contextValues });
    for await (const _ of transport.executeCode({ engineType: "e", language: "l", code: "" }, target, {
      contextValues,
    })) {
      // drained
    }
    expect(legs).toEqual([
      { protocol: "grpc", method: "InvokeTool" },
      { protocol: "grpc", method: "InvokeTool" },
      { protocol: "grpc", method: "ExecuteCode" },
    ]);
    expect(legs[0]).toBe(legs[1]);
    expect(Object.isFrozen(legs[0])).toBe(true);
  });
});
