import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Code, type ErrorDetail, type JsonObject, type JsonValue, TrestleError } from "@trestle/core";
import { scrubSecrets } from "@trestle/core/redaction";
import { describeUpstream, type McpUpstream, upstreamSecretValues } from "./mcp-upstream.js";

/** Longest piece of upstream text quoted in a sentence; the rest is cut, since a sentence is not a log. */
const MAX_QUOTED_LENGTH = 1_000;

/** The longest error data passed on. */
const MAX_ERROR_DATA_LENGTH = 4_096;

/** The codes of 2026-07-28 errors whose `data` a front answers its own client with. */
const ANSWERED_DATA_CODES: ReadonlySet<number> = new Set([-32020, -32021, -32022]);

/**
 * The typed details of an upstream's JSON-RPC error: its code (a front answering in MCP keeps it), the `data` of a
 * 2026-07-28 error a front answers with (-32020 header mismatch, -32021 missing client capability with its
 * `requiredCapabilities`, -32022 unsupported version with its `supported` list) scrubbed of the upstream's secrets
 * and bounded in size, and for -32021 what the client lacks, in the detail every front reads.
 */
export function upstreamErrorDetails(error: McpError, subject: FailureSubject): ErrorDetail[] {
  const rpc: Extract<ErrorDetail, { type: "json-rpc" }> = {
    type: "json-rpc",
    protocol: "mcp",
    code: error.code,
  };
  const details: ErrorDetail[] = [rpc];
  if (!ANSWERED_DATA_CODES.has(error.code) || error.data === undefined) return details;
  const json = JSON.stringify(scrubUpstreamValue(error.data, subject.secrets));
  if (json === undefined || json.length > MAX_ERROR_DATA_LENGTH) return details;
  const data = JSON.parse(json) as JsonValue;
  rpc.data = data;
  const required = (data as { requiredCapabilities?: unknown } | null)?.requiredCapabilities;
  if (
    error.code === -32021 &&
    typeof required === "object" &&
    required !== null &&
    !Array.isArray(required)
  ) {
    details.push({ type: "required-client-capabilities", capabilities: required as JsonObject });
  }
  return details;
}

/** Who failed, and what may not be shown while saying so. */
export interface FailureSubject {
  /** `'node'` or `at https://host`: the only name of the upstream a sentence may use. */
  readonly label: string;
  readonly kind: McpUpstream["kind"];
  /** Values to scrub from any text the upstream produced. */
  readonly secrets: readonly string[];
}

/** The {@link FailureSubject} of an upstream. */
export function failureSubject(upstream: McpUpstream): FailureSubject {
  return { label: describeUpstream(upstream), kind: upstream.kind, secrets: upstreamSecretValues(upstream) };
}

/**
 * Text the upstream produced, made fit to stand inside one sentence: the upstream's secrets scrubbed, every run
 * of whitespace (newlines included) one space, cut to a bounded length, no trailing full stop.
 */
export function quoteUpstream(text: string, subject: FailureSubject): string {
  const flat = scrubSecrets(text, subject.secrets).replace(/\s+/g, " ").trim().replace(/\.$/, "");
  if (flat === "") return "(no message)";
  return flat.length > MAX_QUOTED_LENGTH ? `${flat.slice(0, MAX_QUOTED_LENGTH)}…` : flat;
}

function server(subject: FailureSubject): string {
  return `The MCP server ${subject.label}`;
}

function systemErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

const networkReasons: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_SOCKET: "connection lost",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
};

function isNetworkFailure(error: unknown): string | undefined {
  if (!(error instanceof TypeError) && !(error instanceof Error && error.name === "FetchError"))
    return undefined;
  const code = systemErrorCode(error) ?? (error as { cause?: { code?: unknown } }).cause?.code;
  if (typeof code === "string") return networkReasons[code] ?? code;
  return error.message === "fetch failed" ? "fetch failed" : undefined;
}

function codeForHttpStatus(status: number | undefined): Code {
  if (status === 401) return Code.Unauthenticated;
  if (status === 403) return Code.PermissionDenied;
  if (status === 404) return Code.NotFound;
  if (status === 429) return Code.ResourceExhausted;
  if (status !== undefined && status >= 500) return Code.Unavailable;
  return Code.Internal;
}

/** The Trestle code of a JSON-RPC error code from an upstream. */
export function codeForJsonRpcError(code: number): Code {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return Code.Unimplemented;
    case ErrorCode.InvalidParams:
    case ErrorCode.InvalidRequest:
      return Code.InvalidArgument;
    case -32002: // MCP before 2026-07-28: resource not found
      return Code.NotFound;
    case -32021: // MCP 2026-07-28: a client capability the request needs was not declared
      return Code.FailedPrecondition;
    case -32022: // MCP 2026-07-28: unsupported protocol version
      return Code.Unavailable;
    case ErrorCode.RequestTimeout:
      return Code.DeadlineExceeded;
    case ErrorCode.ConnectionClosed:
      return Code.Unavailable;
    default:
      return Code.Internal;
  }
}

/** The upstream's own text of an `McpError`, without the SDK's `MCP error <code>: ` prefix. */
function mcpErrorText(error: McpError): string {
  // A server built on the SDK prefixes its own message the same way, so the prefix can come twice.
  return error.message.replace(/^(MCP error -?\d+: )+/, "");
}

/**
 * The failure of starting an upstream and completing the MCP handshake, as one sentence that names the
 * server by its program name or origin only. A server that cannot be spawned, exits, answers with an error or
 * stays silent is `Unavailable`.
 */
export function handshakeFailure(
  error: unknown,
  subject: FailureSubject,
  handshakeTimeoutMs: number,
  stderrTail: readonly string[] = [],
): TrestleError {
  const failure = handshakeFailureOf(error, subject, handshakeTimeoutMs);
  // What the program itself said last tells why it stopped better than any reading of the symptom.
  if (subject.kind !== "stdio" || stderrTail.length === 0) return failure;
  return new TrestleError(
    `${failure.rawMessage}; its last lines on stderr: ${stderrTail.map((line) => JSON.stringify(line)).join(" | ")}`,
    failure.code,
    { details: failure.details },
  );
}

function handshakeFailureOf(
  error: unknown,
  subject: FailureSubject,
  handshakeTimeoutMs: number,
): TrestleError {
  const who = server(subject);
  const spawnCode = (error as { syscall?: unknown }).syscall;
  if (typeof spawnCode === "string" && spawnCode.startsWith("spawn")) {
    const code = systemErrorCode(error);
    const why =
      code === "ENOENT"
        ? "the program was not found"
        : code === "EACCES"
          ? "the program is not executable"
          : `the system refused (${code ?? "unknown reason"})`;
    return new TrestleError(`${who} could not be started: ${why}`, Code.Unavailable);
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) {
      const what = subject.kind === "stdio" ? "exited" : "closed the connection";
      return new TrestleError(`${who} ${what} before completing the MCP handshake`, Code.Unavailable);
    }
    if (error.code === ErrorCode.RequestTimeout) {
      return new TrestleError(
        `${who} did not complete the MCP handshake within ${handshakeTimeoutMs} ms (startTimeoutMs on a first start, handshakeTimeoutMs after it: raise it for a server that starts slowly)`,
        Code.Unavailable,
      );
    }
    return new TrestleError(
      `${who} refused the MCP handshake with error ${error.code}: ${quoteUpstream(mcpErrorText(error), subject)}`,
      Code.Unavailable,
      { details: [{ type: "json-rpc", protocol: "mcp", code: error.code }] },
    );
  }
  if (error instanceof StreamableHTTPError) {
    return new TrestleError(
      `${who} answered HTTP ${error.code ?? "with an unexpected response"} to the MCP handshake`,
      error.code === 401
        ? Code.Unauthenticated
        : error.code === 403
          ? Code.PermissionDenied
          : Code.Unavailable,
    );
  }
  const network = isNetworkFailure(error);
  if (network) return new TrestleError(`${who} could not be reached (${network})`, Code.Unavailable);
  if (error instanceof Error && /protocol version is not supported/i.test(error.message)) {
    return new TrestleError(
      `${who} speaks an MCP protocol version this router does not support`,
      Code.Unavailable,
    );
  }
  return new TrestleError(
    `${who} failed during the MCP handshake (${systemErrorCode(error) ?? errorName(error)})`,
    Code.Unavailable,
  );
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * The failure of one request (`tools/call`, `resources/read`, `ping`) to a connected upstream, as one
 * sentence. `signal` is the call's own: when it has aborted, its reason (cancelled or deadline) is the answer,
 * whatever the SDK rejected with.
 */
export function requestFailure(
  error: unknown,
  subject: FailureSubject,
  method: string,
  signal: AbortSignal,
  deadlineMs: number,
): TrestleError {
  const who = server(subject);
  if (signal.aborted) {
    const reason = TrestleError.from(signal.reason, Code.Canceled);
    if (reason.code === Code.DeadlineExceeded) {
      return new TrestleError(
        `${who} did not answer ${method} within ${deadlineMs} ms`,
        Code.DeadlineExceeded,
      );
    }
    return reason;
  }
  if (error instanceof TrestleError) return error;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) {
      const what = subject.kind === "stdio" ? "exited" : "closed the connection";
      return new TrestleError(`${who} ${what} during the ${method} request`, Code.Unavailable);
    }
    if (error.code === ErrorCode.RequestTimeout) {
      return new TrestleError(
        `${who} did not answer ${method} within ${deadlineMs} ms`,
        Code.DeadlineExceeded,
      );
    }
    return new TrestleError(
      `${who} answered ${method} with error ${error.code}: ${quoteUpstream(mcpErrorText(error), subject)}`,
      codeForJsonRpcError(error.code),
      { details: upstreamErrorDetails(error, subject) },
    );
  }
  if (error instanceof StreamableHTTPError) {
    return new TrestleError(
      `${who} answered HTTP ${error.code ?? "with an unexpected response"} to ${method}`,
      codeForHttpStatus(error.code),
    );
  }
  const network = isNetworkFailure(error);
  if (network) return new TrestleError(`${who} could not be reached (${network})`, Code.Unavailable);
  if (error instanceof Error && error.message === "Not connected") {
    return new TrestleError(`${who} is no longer connected`, Code.Unavailable);
  }
  if (error instanceof Error && (error.name === "ZodError" || error.name === "$ZodError")) {
    return new TrestleError(`${who} answered ${method} with a result that is not valid MCP`, Code.Internal);
  }
  return new TrestleError(
    `${who} failed during ${method} (${systemErrorCode(error) ?? errorName(error)})`,
    Code.Unknown,
  );
}

/**
 * `value` (a result or a logging message's data from the upstream) with the upstream's argument, environment
 * and header values scrubbed from every string in it, however deep: a server may echo its own command line.
 */
export function scrubUpstreamValue<T>(value: T, secrets: readonly string[]): T | string {
  if (secrets.length === 0) return value;
  if (typeof value === "string") return scrubSecrets(value, secrets);
  if (value === null || typeof value !== "object") return value;
  try {
    return JSON.parse(
      scrubSecrets(
        JSON.stringify(value),
        secrets.map((s) => JSON.stringify(s).slice(1, -1)),
      ),
    ) as T;
  } catch {
    return "[unserialisable data]";
  }
}

/** True when an error says the HTTP upstream no longer knows the session (it restarted or expired it). */
export function isSessionGone(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  // The spec says 404; some servers (the reference "everything" server among them) answer 400 naming the session.
  return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
}
