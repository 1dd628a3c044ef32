import { create } from "@bufbuild/protobuf";
import { CodeExecutor, HealthProbe, ToolInvokeRequestSchema, ToolInvoker } from "@trestle/proto";
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

  it("serializes with toBinary and deserializes with fromBinary", () => {
    const method = grpcServiceDefinition(ToolInvoker).invokeTool;
    const request = create(ToolInvokeRequestSchema, { uri: "u", arguments: { a: "ü" }, requestId: "r" });
    const bytes = method.requestSerialize(request);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(method.requestDeserialize(bytes)).toEqual(request);
  });
});
