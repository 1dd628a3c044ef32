import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type * as grpc from "@grpc/grpc-js";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import {
  type CodeExecutionReply,
  CodeExecutionRequestSchema,
  ExecutionStatus,
  OutputType,
  ResourceRequestSchema,
  ToolInvokeRequestSchema,
} from "@trestle/proto";
import type { WanakuTransport } from "@trestle/wanaku";
import { afterEach, describe, expect, it } from "vitest";
import { createGrpcWanakuTransport } from "../src/index.js";
import {
  type ProtoLoaderServer,
  protoLoaderService,
  serveRawProtoLoader,
} from "./support/proto-loader-server.js";

// A seed-era capability written by hand on the legacy protos: the replies below are exactly what goes on
// the wire, so these tests pin the mapping at the transport's edge.

interface Seen {
  path: string;
  request: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  const outcome = await promise.then(
    () => new Error("expected the call to reject, but it resolved"),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(TrestleError);
  return outcome as TrestleError;
}

describe("legacy dialect", () => {
  let server: ProtoLoaderServer;
  let transport: WanakuTransport;
  const seen: Seen[] = [];

  function record(
    call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
  ) {
    seen.push({
      path: call.getPath(),
      request: call.request as Record<string, unknown>,
      metadata: call.metadata.getMap(),
    });
  }

  async function serveLegacy(replies: {
    tool?: { isError: boolean; content: string[] };
    resource?: { isError: boolean; content: string[] };
    code?: Record<string, unknown>[];
  }): Promise<ServiceTarget> {
    server = await serveRawProtoLoader("legacy", (s) => {
      s.addService(protoLoaderService("legacy", "tool.ToolInvoker"), {
        InvokeTool: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
          record(call);
          callback(null, replies.tool ?? { isError: false, content: ["ok"] });
        },
      });
      s.addService(protoLoaderService("legacy", "resource.ResourceAcquirer"), {
        ResourceAcquire: (
          call: grpc.ServerUnaryCall<unknown, unknown>,
          callback: grpc.sendUnaryData<unknown>,
        ) => {
          record(call);
          callback(null, replies.resource ?? { isError: false, content: ["r"] });
        },
      });
      s.addService(protoLoaderService("legacy", "tool.Provisioner"), {
        Provision: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
          record(call);
          callback(null, {
            configurationUri: "file:///cfg",
            secretUri: "file:///sec",
            properties: { region: { type: "string", description: "where", required: true } },
          });
        },
      });
      s.addService(protoLoaderService("legacy", "codeexecution.CodeExecutor"), {
        ExecuteCode: (call: grpc.ServerWritableStream<unknown, unknown>) => {
          record(call);
          for (const reply of replies.code ?? []) call.write(reply);
          call.end();
        },
      });
    });
    // No dialect on the target: the transport learns it from dialectFor, as for a Wanaku registration.
    const { dialect: _, ...target } = server.target;
    return target;
  }

  function legacyTransport(): WanakuTransport {
    transport = createGrpcWanakuTransport({
      dialectFor: (t) => (t.port === server.port ? "legacy" : undefined),
    });
    return transport;
  }

  afterEach(async () => {
    await transport?.close();
    await server?.close();
    seen.length = 0;
  });

  it("sends a tool call to tool.ToolInvoker with camelCase URIs and the request id as metadata", async () => {
    const target = await serveLegacy({ tool: { isError: false, content: ["a", "b"] } });
    const reply = await legacyTransport().invokeTool(
      create(ToolInvokeRequestSchema, {
        uri: "tool://x",
        body: "{}",
        arguments: { k: "v" },
        headers: { h: "1" },
        configurationUri: "file:///config",
        secretsUri: "file:///secret",
        requestId: "req-9",
      }),
      target,
    );
    expect(reply.content).toEqual(["a", "b"]);
    expect(seen[0]?.path).toBe("/tool.ToolInvoker/InvokeTool");
    expect(seen[0]?.request).toEqual({
      uri: "tool://x",
      body: "{}",
      arguments: { k: "v" },
      headers: { h: "1" },
      configurationURI: "file:///config",
      secretsURI: "file:///secret",
    });
    expect(seen[0]?.metadata["x-wanaku-request-id"]).toBe("req-9");
  });

  it("turns an isError tool reply into Internal with the content as message", async () => {
    const target = await serveLegacy({ tool: { isError: true, content: ["city not found", "try again"] } });
    const error = await rejection(legacyTransport().invokeTool(create(ToolInvokeRequestSchema, {}), target));
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe("city not found\ntry again");
  });

  it("turns an isError resource reply into Internal, and maps a resource request", async () => {
    const target = await serveLegacy({ resource: { isError: true, content: ["no such file"] } });
    const error = await rejection(
      legacyTransport().acquireResource(
        create(ResourceRequestSchema, { location: "file:///a", type: "file", name: "a", secretsUri: "s" }),
        target,
      ),
    );
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe("no such file");
    expect(seen[0]?.path).toBe("/resource.ResourceAcquirer/ResourceAcquire");
    expect(seen[0]?.request).toMatchObject({ location: "file:///a", secretsURI: "s", configurationURI: "" });
  });

  it("provisions with legacy payload types (BUILTIN = 1) and maps the reply", async () => {
    const target = await serveLegacy({});
    const ref = await legacyTransport().provision("weather", "units=metric", "key=s", target);
    expect(ref).toEqual({
      configurationUri: "file:///cfg",
      secretsUri: "file:///sec",
      properties: { region: { type: "string", description: "where", required: true } },
    });
    expect(seen[0]?.path).toBe("/tool.Provisioner/Provision");
    expect(seen[0]?.request).toMatchObject({
      configuration: { type: 1, name: "weather", payload: "units=metric" },
      secret: { type: 1, name: "weather", payload: "key=s" },
    });
  });

  it("maps code execution both ways: timeout in ms, shifted enums, ms timestamps, meaningful exit codes", async () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const target = await serveLegacy({
      code: [
        { content: [], outputType: "STATUS", status: "PENDING", exitCode: 0, timestamp: 0 },
        { content: ["out\n"], outputType: "STDOUT", status: "RUNNING", exitCode: 0, timestamp: at },
        { content: ["err\n"], outputType: "STDERR", status: "RUNNING", exitCode: 0, timestamp: at },
        { content: [], outputType: "COMPLETION", status: "COMPLETED", exitCode: 0, timestamp: at },
      ],
    });
    const replies: CodeExecutionReply[] = [];
    for await (const reply of legacyTransport().executeCode(
      create(CodeExecutionRequestSchema, {
        uri: "code-execution-engine://jvm/java",
        code: "print(1)",
        timeout: 1_500n,
        environment: { A: "1" },
      }),
      target,
    )) {
      replies.push(reply);
    }
    expect(seen[0]?.path).toBe("/codeexecution.CodeExecutor/ExecuteCode");
    expect(seen[0]?.request).toMatchObject({ code: "print(1)", timeout: "1500", environment: { A: "1" } });
    expect(replies.map((r) => [r.outputType, r.status, r.exitCode])).toEqual([
      [OutputType.STATUS, ExecutionStatus.PENDING, undefined],
      [OutputType.STDOUT, ExecutionStatus.RUNNING, undefined],
      [OutputType.STDERR, ExecutionStatus.RUNNING, undefined],
      [OutputType.COMPLETION, ExecutionStatus.COMPLETED, 0],
    ]);
    expect(replies[0]?.timestamp).toBeUndefined();
    expect(replies[1]?.timestamp && timestampMs(replies[1].timestamp)).toBe(at);
  });

  it("yields every reply of a stream with an isError reply, then fails with Internal carrying its content", async () => {
    const target = await serveLegacy({
      code: [
        { content: ["partial\n"], outputType: "STDOUT", status: "RUNNING" },
        { isError: true, content: ["division by zero"], outputType: "STDERR", status: "RUNNING" },
        { content: ["after\n"], outputType: "STDOUT", status: "RUNNING" },
        { content: [], outputType: "COMPLETION", status: "FAILED", exitCode: 1 },
      ],
    });
    const contents: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const reply of legacyTransport().executeCode(
          create(CodeExecutionRequestSchema, {}),
          target,
        )) {
          contents.push(reply.content.join(""));
        }
      })(),
    );
    expect(contents).toEqual(["partial\n", "division by zero", "after\n", ""]);
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe("division by zero");
  });

  it("reports a legacy service without a health probe as healthy once it answers", async () => {
    const target = await serveLegacy({});
    const health = await legacyTransport().probeHealth(target);
    expect(health.state).toBe("healthy");
  });

  it("speaks v1 to a target the options do not mark legacy", async () => {
    const target = await serveLegacy({});
    const error = await rejection(
      createGrpcWanakuTransport().invokeTool(create(ToolInvokeRequestSchema, {}), target),
    );
    // The legacy server has no ai.wanaku.tool.v1.ToolInvoker.
    expect(error.code).toBe(Code.Unimplemented);
  });
});
