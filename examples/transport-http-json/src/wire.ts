import { Code, codeFromString, codeToString, type JsonValue, TrestleError } from "@trestle/core";

/**
 * The calls of the neutral contract, each a `POST` to its own path. The body of every request is a
 * {@link RequestEnvelope}; a unary answer is one {@link ReplyLine}, a stream is newline-delimited JSON.
 */
export const CALL_PATHS = {
  callTool: "/call-tool",
  readResource: "/read-resource",
  getPrompt: "/get-prompt",
  executeCode: "/execute-code",
  provision: "/provision",
  probeHealth: "/probe-health",
} as const;

/** The metadata key that carries the caller's request id (`CallOptions.requestId`) on this wire. */
export const REQUEST_ID_KEY = "x-request-id";

/** What a client sends: the call (a `ToolCall`, a `CodeRun`, …) as JSON, and its metadata (keys lower-case). */
export interface RequestEnvelope {
  request: JsonValue;
  metadata: Record<string, string>;
}

/** A failure on the wire: the code's name (`"not_found"`) and the message, nothing else. */
export interface WireError {
  code: string;
  message: string;
}

/**
 * One answer: the result as JSON (a `ToolResult`, one `CodeOutput` of a stream, …), an error, or — closing a
 * stream — the end marker. A stream that
 * stops without `end` or `error` was cut off, and the client says so instead of passing it off as complete.
 */
export type ReplyLine = { reply: JsonValue } | { error: WireError } | { end: true };

/** Content type of a stream of {@link ReplyLine}s, one JSON object per line. */
export const NDJSON = "application/x-ndjson";

/** What a thrown value becomes on the wire: a `TrestleError` keeps its code, anything else is `internal`. */
export function toWireError(error: unknown): WireError {
  if (error instanceof TrestleError) return { code: codeToString(error.code), message: error.rawMessage };
  return {
    code: codeToString(Code.Internal),
    message: error instanceof Error ? error.message : String(error),
  };
}

/** The `TrestleError` a wire error stands for; a code this side does not know becomes `Unknown`. */
export function fromWireError(error: WireError): TrestleError {
  return new TrestleError(error.message, codeFromString(error.code) ?? Code.Unknown);
}

const HTTP_STATUS: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.FailedPrecondition]: 412,
  [Code.ResourceExhausted]: 429,
  [Code.Canceled]: 499,
  [Code.Unimplemented]: 501,
  [Code.Unavailable]: 503,
  [Code.DeadlineExceeded]: 504,
};

/**
 * The HTTP status of an error answer. Only for people and proxies reading the traffic: the client trusts the
 * code in the body, and falls back on the status only when the body is not a {@link ReplyLine}.
 */
export function httpStatusFor(code: Code): number {
  return HTTP_STATUS[code] ?? 500;
}
