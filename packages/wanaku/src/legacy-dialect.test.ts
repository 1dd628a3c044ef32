import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@trestle/core";
import { CodeExecutionRequestSchema, ExecutionStatus, OutputType, PayloadType } from "@trestle/proto";
import { legacyCodeExecution, legacyProvision, legacyTool } from "@trestle/proto/legacy";
import { describe, expect, it } from "vitest";
import {
  fromLegacyCodeReply,
  fromLegacyToolReply,
  toLegacyCodeRequest,
  toLegacyProvisionRequest,
} from "./legacy-dialect.js";
import { buildProvisionRequest } from "./provisioning.js";

describe("legacy dialect mapping", () => {
  it("shifts payload types down by one, v1 UNSPECIFIED becoming the legacy default", () => {
    const request = toLegacyProvisionRequest(
      buildProvisionRequest({ name: "n", configurationData: "c", secretsData: "s" }),
    );
    expect(request.configuration?.type).toBe(legacyProvision.PayloadType.BUILTIN);
    const unspecified = toLegacyProvisionRequest({
      ...buildProvisionRequest({ name: "n", configurationData: "c", secretsData: "s" }),
      secret: {
        $typeName: "ai.wanaku.provision.v1.Secret",
        type: PayloadType.UNSPECIFIED,
        name: "n",
        payload: "",
      },
    });
    expect(unspecified.secret?.type).toBe(legacyProvision.PayloadType.REFERENCE);
  });

  it("sends an unset timeout as 0 ms", () => {
    expect(toLegacyCodeRequest(create(CodeExecutionRequestSchema, {})).timeout).toBe(0n);
    expect(toLegacyCodeRequest(create(CodeExecutionRequestSchema, { timeout: 250n })).timeout).toBe(250n);
  });

  it("keeps a legacy exit code only where it means something", () => {
    const reply = (init: MessageInitShape<typeof legacyCodeExecution.CodeExecutionReplySchema>) =>
      fromLegacyCodeReply(create(legacyCodeExecution.CodeExecutionReplySchema, init));
    expect(reply({ status: legacyCodeExecution.ExecutionStatus.RUNNING }).exitCode).toBeUndefined();
    expect(reply({ status: legacyCodeExecution.ExecutionStatus.RUNNING, exitCode: 3 }).exitCode).toBe(3);
    expect(reply({ status: legacyCodeExecution.ExecutionStatus.FAILED }).exitCode).toBe(0);
    const done = reply({
      outputType: legacyCodeExecution.OutputType.COMPLETION,
      timestamp: 1_700_000_000_123n,
    });
    expect(done.outputType).toBe(OutputType.COMPLETION);
    expect(done.status).toBe(ExecutionStatus.PENDING);
    expect(done.exitCode).toBe(0);
    expect(done.timestamp && timestampMs(done.timestamp)).toBe(1_700_000_000_123);
  });

  it("rejects an isError tool reply with Internal and a fallback text when it has no content", () => {
    const attempt = () => fromLegacyToolReply(create(legacyTool.ToolInvokeReplySchema, { isError: true }));
    expect(attempt).toThrow(
      expect.objectContaining({ code: Code.Internal, rawMessage: "The tool reported an error" }),
    );
  });
});
