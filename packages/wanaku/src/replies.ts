import type { CodeOutput, ResourceContents, ResourceRead, ResourceResult, ToolResult } from "@trestle/core";
import {
  type CodeExecutionReply,
  ExecutionStatus,
  OutputType,
  type ResourceReply,
  type ToolInvokeReply,
} from "@trestle/proto";

/** A tool's result from its reply: one text block per content string (the contract has only text). */
export function toolResultFromReply(reply: ToolInvokeReply): ToolResult {
  return { content: reply.content.map((text) => ({ type: "text", text })) };
}

/**
 * A read's result from its reply: one text entry per content string, each at the URI that was read and with
 * the resource's MIME type when the catalog gives one.
 */
export function resourceResultFromReply(reply: ResourceReply, read: ResourceRead): ResourceResult {
  const mimeType = read.resource.mimeType;
  return {
    contents: reply.content.map((text): ResourceContents => {
      const contents: ResourceContents = { uri: read.uri, text };
      if (mimeType) contents.mimeType = mimeType;
      return contents;
    }),
  };
}

const endStatuses = {
  [ExecutionStatus.COMPLETED]: "completed",
  [ExecutionStatus.FAILED]: "failed",
  [ExecutionStatus.CANCELLED]: "cancelled",
  [ExecutionStatus.TIMEOUT]: "timeout",
} as const satisfies Partial<Record<ExecutionStatus, string>>;

function isEndStatus(status: ExecutionStatus): status is keyof typeof endStatuses {
  return Object.hasOwn(endStatuses, status);
}

/**
 * The outputs one `CodeExecutionReply` stands for, in order: its text as standard output or error (for a
 * reply of type STDOUT or STDERR with text); then an `exit` when the reply carries an end status (completed,
 * failed, cancelled, timeout), is of type COMPLETION or carries an exit code; otherwise, when it said nothing
 * else, a `status` (pending, or running by default). The text is the reply's content joined.
 */
export function codeOutputsFromReply(reply: CodeExecutionReply): CodeOutput[] {
  const text = reply.content.join("");
  const outputs: CodeOutput[] = [];
  const isOutput = reply.outputType === OutputType.STDOUT || reply.outputType === OutputType.STDERR;
  if (isOutput && text) {
    outputs.push({
      type: "output",
      stream: reply.outputType === OutputType.STDOUT ? "stdout" : "stderr",
      text,
    });
  }
  if (
    isEndStatus(reply.status) ||
    reply.outputType === OutputType.COMPLETION ||
    reply.exitCode !== undefined
  ) {
    const exit: CodeOutput = {
      type: "exit",
      status: isEndStatus(reply.status) ? endStatuses[reply.status] : "completed",
    };
    if (reply.exitCode !== undefined) exit.exitCode = reply.exitCode;
    if (text && !isOutput) exit.text = text;
    outputs.push(exit);
  } else if (!isOutput) {
    const status: CodeOutput = {
      type: "status",
      status: reply.status === ExecutionStatus.PENDING ? "pending" : "running",
    };
    if (text) status.text = text;
    outputs.push(status);
  }
  return outputs;
}
