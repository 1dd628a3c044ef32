import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  CodeExecutor,
  HealthProbe,
  ToolInvokeReplySchema,
  ToolInvokeRequestSchema,
  ToolInvoker,
} from "@trestle/proto";
import { legacyCodeExecution, legacyProvision } from "@trestle/proto/legacy";
import { describe, expect, it } from "vitest";
import { grpcServiceDefinition } from "./service-definition.js";

describe("grpcServiceDefinition", () => {
  it("names each method by its gRPC path and marks server streaming", () => {
    const tool = grpcServiceDefinition(ToolInvoker).invokeTool;
    expect(tool.path).toBe("/ai.wanaku.tool.v1.ToolInvoker/InvokeTool");
    expect([tool.requestStream, tool.responseStream]).toEqual([false, false]);
    expect(grpcServiceDefinition(HealthProbe).getStatus.path).toBe(
      "/ai.wanaku.health.v1.HealthProbe/GetStatus",
    );
    const code = grpcServiceDefinition(CodeExecutor).executeCode;
    expect(code.path).toBe("/ai.wanaku.codeexecution.v1.CodeExecutor/ExecuteCode");
    expect([code.requestStream, code.responseStream]).toEqual([false, true]);
    expect(grpcServiceDefinition(legacyProvision.Provisioner).provision.path).toBe(
      "/tool.Provisioner/Provision",
    );
    expect(grpcServiceDefinition(legacyCodeExecution.CodeExecutor).executeCode.path).toBe(
      "/codeexecution.CodeExecutor/ExecuteCode",
    );
  });

  it("serializes to toBinary's bytes in a Buffer and deserializes to fromBinary's message", () => {
    const method = grpcServiceDefinition(ToolInvoker).invokeTool;
    const request = create(ToolInvokeRequestSchema, { uri: "u", arguments: { a: "ü" }, requestId: "r" });
    const bytes = method.requestSerialize(request);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.equals(Buffer.from(toBinary(ToolInvokeRequestSchema, request)))).toBe(true);
    expect(method.requestDeserialize(bytes)).toStrictEqual(fromBinary(ToolInvokeRequestSchema, bytes));
    expect(method.requestDeserialize(bytes)).toEqual(request);
    const reply = create(ToolInvokeReplySchema, { content: ["a", "b"] });
    const replyBytes = method.responseSerialize(reply);
    expect(Buffer.isBuffer(replyBytes)).toBe(true);
    expect(method.responseDeserialize(replyBytes)).toStrictEqual(reply);
  });

  it("frames a request for the lean client: the 5-byte gRPC header, then the serialized message", () => {
    const method = grpcServiceDefinition(ToolInvoker).invokeTool;
    const request = create(ToolInvokeRequestSchema, { uri: "tool://x", headers: { h: "1" } });
    const frame = method.requestFrame?.(request);
    const message = method.requestSerialize(request);
    expect(frame?.[0]).toBe(0);
    expect(frame?.readUInt32BE(1)).toBe(message.length);
    expect(frame?.subarray(5).equals(message)).toBe(true);
  });

  it("refuses malformed bytes as fromBinary does", () => {
    const method = grpcServiceDefinition(ToolInvoker).invokeTool;
    expect(() => method.responseDeserialize(Buffer.from([0x12, 0x05, 0x61]))).toThrow();
  });
});
