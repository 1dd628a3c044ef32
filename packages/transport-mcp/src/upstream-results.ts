/**
 * An upstream's answers in core's terms: tool results (an error's text scrubbed), log messages, the params that
 * carry a repeated call's answers, and the refusal that shows a modern upstream was replaced by a legacy one.
 */
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  Code,
  type InputAnswers,
  type JsonObject,
  type LogMessage,
  type ToolResult,
  TrestleError,
} from "@trestle/core";
import { type FailureSubject, scrubUpstreamValue } from "./mcp-failure.js";
import { inputResponseParams, SERVER_INFO_META_KEY } from "./modern-era.js";
import type { McpLogMessage, UpstreamConnection } from "./upstream-connection.js";

/** An MCP logging message as core's {@link LogMessage}. */
export function logMessage(message: McpLogMessage): LogMessage {
  return {
    level: message.level,
    ...(message.logger !== undefined ? { logger: message.logger } : {}),
    data: (message.data ?? null) as LogMessage["data"],
  };
}

/**
 * The upstream's `tools/call` result as core's {@link ToolResult}: its content blocks, `structuredContent`,
 * `_meta` and `isError` as the upstream sent them (both follow MCP's content model). An `isError` result is
 * text the upstream wrote about a failure, which may quote its own command line: its strings are scrubbed of
 * the upstream's argument, environment and header values.
 */
export function toolResult(result: CallToolResult, subject: FailureSubject): ToolResult {
  const out = withMeta<ToolResult>(
    { content: (result.content ?? []) as ToolResult["content"] },
    result as unknown as JsonObject,
  );
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent as JsonObject;
  if (result.isError !== true) return out;
  out.isError = true;
  const scrubbed = scrubUpstreamValue(out, subject.secrets);
  return typeof scrubbed === "string"
    ? { content: [{ type: "text", text: scrubbed }], isError: true }
    : scrubbed;
}

/** `out` with the upstream result's `_meta`, less the upstream's own identity (the router names itself). */
export function withMeta<T extends { _meta?: JsonObject }>(out: T, result: JsonObject): T {
  const meta = result._meta as JsonObject | undefined;
  if (meta === undefined) return out;
  const { [SERVER_INFO_META_KEY]: _serverInfo, ...rest } = meta;
  if (Object.keys(rest).length > 0) out._meta = rest;
  return out;
}

/**
 * The params that carry a repeated call's answers (`inputResponses`, `requestState`).
 * @throws TrestleError `FailedPrecondition` when the upstream speaks a legacy revision, which has no such
 * round trip (it asks during the call instead).
 */
export function answersFor(
  connection: UpstreamConnection,
  input: InputAnswers | undefined,
  subject: FailureSubject,
): JsonObject {
  if (!input) return {};
  if (connection.era !== "modern") {
    throw new TrestleError(
      `The MCP server ${subject.label} speaks MCP ${connection.protocolVersion ?? "before 2026-07-28"}, which has no input_required round trip to answer`,
      Code.FailedPrecondition,
    );
  }
  return inputResponseParams(input);
}

/** True when a modern HTTP upstream refused a modern request the way a legacy server does (it was replaced). */
export function isEraRefused(error: unknown): boolean {
  return error instanceof StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0);
}
