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

/** MIME types whose content is text: served as text whatever it looks like. */
const TEXT_MIME =
  /^(text\/|application\/(json|xml|javascript|x-yaml|yaml|toml|x-sh|sql|graphql|ld\+json)|[^/]+\/[^;]*\+(json|xml))/i;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * One content string of a reply as neutral contents. The contract carries content as strings only; a capability
 * returns binary content Base64-encoded (as the built-in file provider does), so content whose MIME type is not
 * textual and that is strict Base64 is binary: a `blob`. Everything else is `text`.
 */
function contentsOf(uri: string, mimeType: string | undefined, text: string): ResourceContents {
  if (mimeType && !TEXT_MIME.test(mimeType) && text.length > 0 && STRICT_BASE64.test(text)) {
    return { uri, mimeType, blob: text };
  }
  const contents: ResourceContents = { uri, text };
  if (mimeType) contents.mimeType = mimeType;
  return contents;
}

/**
 * A read's result from its reply: one entry per content string, each at the URI that was read and with the
 * resource's MIME type when the catalog gives one; a `blob` where the resource's MIME type is not textual and the
 * string is strict Base64 (the contract's way of carrying binary content), `text` otherwise.
 */
export function resourceResultFromReply(reply: ResourceReply, read: ResourceRead): ResourceResult {
  const mimeType = read.resource.mimeType;
  return { contents: reply.content.map((text) => contentsOf(read.uri, mimeType, text)) };
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
