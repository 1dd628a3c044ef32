import { create } from "@bufbuild/protobuf";
import type { ResourceRead } from "@trestle/core";
import {
  CodeExecutionReplySchema,
  ExecutionStatus,
  OutputType,
  ResourceReplySchema,
  ToolInvokeReplySchema,
} from "@trestle/proto";
import { describe, expect, it } from "vitest";
import { codeOutputsFromReply, resourceResultFromReply, toolResultFromReply } from "../src/index.js";

describe("reply decoding", () => {
  it("turns each tool reply string into one text block, in order", () => {
    const reply = create(ToolInvokeReplySchema, { content: ['{"a":1}', "second"] });
    expect(toolResultFromReply(reply)).toEqual({
      content: [
        { type: "text", text: '{"a":1}' },
        { type: "text", text: "second" },
      ],
    });
  });

  it("puts each resource string at the URI read, with the resource's MIME type when it has one", () => {
    const read: ResourceRead = {
      resource: { location: "w://{city}", type: "w", name: "weather", mimeType: "application/json" },
      uri: "w://oslo",
    };
    const reply = create(ResourceReplySchema, { content: ["a", "b"] });
    expect(resourceResultFromReply(reply, read).contents).toEqual([
      { uri: "w://oslo", mimeType: "application/json", text: "a" },
      { uri: "w://oslo", mimeType: "application/json", text: "b" },
    ]);
    const plain = { ...read, resource: { ...read.resource, mimeType: undefined } } as ResourceRead;
    expect(resourceResultFromReply(reply, plain).contents[0]).toEqual({ uri: "w://oslo", text: "a" });
  });

  it("returns a resource's binary content as a blob: a non-text MIME type and strict Base64, as the contract carries it", () => {
    const read = (mimeType?: string): ResourceRead => ({
      resource: { location: "f://x", type: "f", name: "x", ...(mimeType ? { mimeType } : {}) },
      uri: "f://x",
    });
    const reply = create(ResourceReplySchema, { content: ["iVBORw0KGgo=", "not base64!", ""] });
    expect(resourceResultFromReply(reply, read("image/png")).contents).toEqual([
      { uri: "f://x", mimeType: "image/png", blob: "iVBORw0KGgo=" },
      { uri: "f://x", mimeType: "image/png", text: "not base64!" },
      { uri: "f://x", mimeType: "image/png", text: "" },
    ]);
    // Text MIME types (and none at all) stay text, however much the content looks like Base64.
    for (const mimeType of ["text/plain", "application/json", "application/vnd.api+json", undefined]) {
      expect(resourceResultFromReply(reply, read(mimeType)).contents[0]).toEqual({
        uri: "f://x",
        ...(mimeType ? { mimeType } : {}),
        text: "iVBORw0KGgo=",
      });
    }
  });

  it.each([
    [OutputType.STDOUT, ExecutionStatus.RUNNING, [{ type: "output", stream: "stdout", text: "hi\n" }]],
    [OutputType.STDERR, ExecutionStatus.RUNNING, [{ type: "output", stream: "stderr", text: "hi\n" }]],
    [OutputType.STATUS, ExecutionStatus.PENDING, [{ type: "status", status: "pending", text: "hi\n" }]],
    [OutputType.STATUS, ExecutionStatus.RUNNING, [{ type: "status", status: "running", text: "hi\n" }]],
    [OutputType.COMPLETION, ExecutionStatus.FAILED, [{ type: "exit", status: "failed", text: "hi\n" }]],
    [OutputType.COMPLETION, ExecutionStatus.TIMEOUT, [{ type: "exit", status: "timeout", text: "hi\n" }]],
  ])("decodes a reply of type %s and status %s", (outputType, status, expected) => {
    const reply = create(CodeExecutionReplySchema, { content: ["hi", "\n"], outputType, status });
    expect(codeOutputsFromReply(reply)).toEqual(expected);
  });

  it("keeps both the output and the exit of a last chunk that carries an exit code", () => {
    const reply = create(CodeExecutionReplySchema, {
      content: ["bye"],
      outputType: OutputType.STDOUT,
      status: ExecutionStatus.COMPLETED,
      exitCode: 3,
    });
    expect(codeOutputsFromReply(reply)).toEqual([
      { type: "output", stream: "stdout", text: "bye" },
      { type: "exit", status: "completed", exitCode: 3 },
    ]);
  });

  it("reads a completion without a status as completed, with its exit code", () => {
    const reply = create(CodeExecutionReplySchema, { outputType: OutputType.COMPLETION, exitCode: 0 });
    expect(codeOutputsFromReply(reply)).toEqual([{ type: "exit", status: "completed", exitCode: 0 }]);
  });
});
