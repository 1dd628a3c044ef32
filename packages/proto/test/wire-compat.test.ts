import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import {
  CodeExecutionReplySchema,
  CodeExecutionRequestSchema,
  ExecutionStatus,
  HealthProbeReplySchema,
  OutputType,
  PayloadType,
  ProvisionReplySchema,
  ProvisionRequestSchema,
  ResourceRequestSchema,
  RuntimeStatus,
  ToolInvokeReplySchema,
  ToolInvokeRequestSchema,
} from "../src/index.js";
import { legacyCodeExecution, legacyTool } from "../src/legacy.js";

const protoRoot = join(import.meta.dirname, "..", "..", "..", "proto");

/** Loads the .proto text with protobufjs: a schema-less encoder that shares no code with protoc-gen-es. */
function loadIndependent(file: string): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith("google/") ? target : join(protoRoot, target));
  root.loadSync(file, { keepCase: true });
  return root;
}

describe("v1 wire compatibility with an independent protobuf implementation", () => {
  it("ToolInvokeRequest: bytes from protobufjs decode into the generated type, and back identically", () => {
    const root = loadIndependent("ai/wanaku/tool/v1/toolrequest.proto");
    const Type = root.lookupType("ai.wanaku.tool.v1.ToolInvokeRequest");
    const plain = {
      uri: "http://example.com/{id}",
      body: "{}",
      arguments: { id: "42", q: "ü" },
      configuration_uri: "file:///c",
      secrets_uri: "file:///s",
      headers: { "X-Trace": "t" },
      request_id: "7",
    };
    const bytes = Type.encode(Type.fromObject(plain)).finish();
    const decoded = fromBinary(ToolInvokeRequestSchema, bytes);
    expect(decoded.uri).toBe(plain.uri);
    expect(decoded.arguments).toEqual(plain.arguments);
    expect(decoded.configurationUri).toBe(plain.configuration_uri);
    expect(decoded.secretsUri).toBe(plain.secrets_uri);
    expect(decoded.headers).toEqual(plain.headers);
    expect(decoded.requestId).toBe("7");
    const back = Type.toObject(Type.decode(toBinary(ToolInvokeRequestSchema, decoded)));
    expect(back).toEqual(plain);
  });

  it("ToolInvokeReply: field 2 carries content and field 1 is never written", () => {
    const reply = create(ToolInvokeReplySchema, { content: ["a", "b"] });
    const bytes = toBinary(ToolInvokeReplySchema, reply);
    // Hand-built: tag (2 << 3 | 2) = 0x12, length, utf8.
    expect(Array.from(bytes)).toEqual([0x12, 1, 0x61, 0x12, 1, 0x62]);
  });

  it("ResourceRequest uses the contract's field numbers", () => {
    const root = loadIndependent("ai/wanaku/resource/v1/resourcerequest.proto");
    const Type = root.lookupType("ai.wanaku.resource.v1.ResourceRequest");
    const msg = create(ResourceRequestSchema, {
      location: "file:///x",
      type: "file",
      name: "x",
      params: { a: "1" },
      configurationUri: "c",
      secretsUri: "s",
      requestId: "r",
    });
    const obj = Type.toObject(Type.decode(toBinary(ResourceRequestSchema, msg)));
    expect(obj).toEqual({
      location: "file:///x",
      type: "file",
      name: "x",
      params: { a: "1" },
      configuration_uri: "c",
      secrets_uri: "s",
      request_id: "r",
    });
  });

  it("Provision: enums and nested messages round-trip through protobufjs", () => {
    const root = loadIndependent("ai/wanaku/provision/v1/provision.proto");
    const Req = root.lookupType("ai.wanaku.provision.v1.ProvisionRequest");
    const Reply = root.lookupType("ai.wanaku.provision.v1.ProvisionReply");
    const req = create(ProvisionRequestSchema, {
      configuration: { type: PayloadType.BUILTIN, name: "t", payload: "k=v" },
      secret: { type: PayloadType.BUILTIN, name: "t", payload: "s=1" },
    });
    const obj = Req.toObject(Req.decode(toBinary(ProvisionRequestSchema, req)), { enums: String });
    expect(obj).toEqual({
      configuration: { type: "PAYLOAD_TYPE_BUILTIN", name: "t", payload: "k=v" },
      secret: { type: "PAYLOAD_TYPE_BUILTIN", name: "t", payload: "s=1" },
    });
    const replyBytes = Reply.encode(
      Reply.fromObject({
        configuration_uri: "file:///c",
        secret_uri: "file:///s",
        properties: { p: { type: "string", description: "d", required: true } },
      }),
    ).finish();
    const reply = fromBinary(ProvisionReplySchema, replyBytes);
    expect(reply.configurationUri).toBe("file:///c");
    expect(reply.secretUri).toBe("file:///s");
    expect(reply.properties.p).toMatchObject({ type: "string", description: "d", required: true });
  });

  it("HealthProbeReply: RUNTIME_STATUS_STARTED is 4", () => {
    const bytes = toBinary(
      HealthProbeReplySchema,
      create(HealthProbeReplySchema, { status: RuntimeStatus.STARTED }),
    );
    expect(Array.from(bytes)).toEqual([0x08, 4]);
  });

  it("CodeExecution: optional fields, enums and the Timestamp match protobufjs", () => {
    const root = loadIndependent("ai/wanaku/codeexecution/v1/codeexecution.proto");
    const Req = root.lookupType("ai.wanaku.codeexecution.v1.CodeExecutionRequest");
    const Reply = root.lookupType("ai.wanaku.codeexecution.v1.CodeExecutionReply");
    const reqBytes = Req.encode(
      Req.fromObject({
        uri: "code-execution-engine://trestle/python",
        code: "print(1)",
        arguments: { arg0: "x" },
        timeout: 5000,
        environment: { A: "b" },
        request_id: "9",
      }),
    ).finish();
    const req = fromBinary(CodeExecutionRequestSchema, reqBytes);
    expect(req.timeout).toBe(5000n);
    expect(req.environment).toEqual({ A: "b" });
    expect(req.arguments).toEqual({ arg0: "x" });

    const reply = create(CodeExecutionReplySchema, {
      content: ["hello\n"],
      outputType: OutputType.STDOUT,
      status: ExecutionStatus.RUNNING,
      exitCode: 0,
      timestamp: timestampFromMs(1_700_000_000_123),
    });
    const obj = Reply.toObject(Reply.decode(toBinary(CodeExecutionReplySchema, reply)), {
      enums: String,
      longs: Number,
    });
    expect(obj).toEqual({
      content: ["hello\n"],
      output_type: "OUTPUT_TYPE_STDOUT",
      status: "EXECUTION_STATUS_RUNNING",
      exit_code: 0,
      timestamp: { seconds: 1_700_000_000, nanos: 123_000_000 },
    });
    // An absent exit code stays absent: `optional` keeps presence on the wire.
    const noExit = fromBinary(
      CodeExecutionReplySchema,
      toBinary(CodeExecutionReplySchema, create(CodeExecutionReplySchema)),
    );
    expect(noExit.exitCode).toBeUndefined();
  });
});

describe("legacy wire shapes", () => {
  it("legacy ToolInvokeReply carries isError in field 1", () => {
    const bytes = toBinary(
      legacyTool.ToolInvokeReplySchema,
      create(legacyTool.ToolInvokeReplySchema, { isError: true, content: ["x"] }),
    );
    expect(Array.from(bytes)).toEqual([0x08, 1, 0x12, 1, 0x78]);
  });

  it("legacy enums start at zero without UNSPECIFIED", () => {
    expect(legacyCodeExecution.OutputType.STDOUT).toBe(0);
    expect(legacyCodeExecution.ExecutionStatus.TIMEOUT).toBe(5);
  });
});
