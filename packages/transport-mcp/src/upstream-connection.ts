import type {
  ClientCapabilities,
  Implementation,
  LoggingMessageNotification,
  Progress,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import type { InputRequest, InputResponse, JsonObject } from "@trestle/core";
import { openLegacy } from "./legacy-connection.js";
import type { FailureSubject } from "./mcp-failure.js";
import type { McpStdioUpstream, McpUpstream } from "./mcp-upstream.js";
import { openModern } from "./modern-connection.js";
import type { McpEra } from "./modern-era.js";
import type { StdioLaunch } from "./stdio-sandbox.js";
/** Which of an upstream's lists changed (`notifications/<kind>/list_changed`). */
export type McpListKind = "tools" | "resources" | "prompts";

/** A logging message from an upstream (`notifications/message`), its data already scrubbed of the upstream's secrets. */
export type McpLogMessage = LoggingMessageNotification["params"];

/** The methods the transport sends, whichever the era. */
export type UpstreamMethod =
  | "tools/call"
  | "prompts/get"
  | "resources/read"
  | "tools/list"
  | "resources/list"
  | "resources/templates/list"
  | "prompts/list"
  | "ping";

/** What a connection reports while it lives. Each callback must not throw. */
export interface ConnectionHooks {
  /** A logging message not tied to a request that listens for its own (`UpstreamRequestOptions.onLog`). */
  onLog?(message: McpLogMessage): void;
  onListChanged?(kind: McpListKind): void;
  /** One line the server wrote to stderr (stdio only), scrubbed of the upstream's secrets. */
  onStderr?(line: string): void;
  /** The connection ended: the process exited or the connection was closed. Called once. */
  onClosed?(): void;
  /**
   * The SDK reported a transport error outside any request (e.g. the HTTP event stream failed). The error is
   * the SDK's own and may quote the server: use it to decide, never show it.
   */
  onError?(error: unknown): void;
}

/** What the transport knows of an upstream's era from an earlier connection (so that it need not probe again). */
export type EraVerdict =
  | { era: "modern"; discover: DiscoveredServer }
  | { era: "legacy"; protocolVersion?: string };

/** What a modern upstream said of itself in `server/discover`. */
export interface DiscoveredServer {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** How to open a connection. */
export interface OpenConnectionOptions {
  subject: FailureSubject;
  clientInfo: Implementation;
  handshakeTimeoutMs: number;
  /** Aborts the handshake (its reason is thrown). */
  signal?: AbortSignal;
  hooks?: ConnectionHooks;
  /**
   * Declare the `elicitation`, `sampling` and `roots` capabilities on a legacy session, so that the upstream may
   * ask for input during a request; each such request goes to the `onInputRequest` of the request it belongs to.
   * Without it the upstream knows not to ask.
   */
  interactive?: boolean;
  /** The era an earlier connection found: `modern` skips the probe on HTTP, `legacy` goes straight to `initialize`. */
  prior?: EraVerdict;
  /** Called with the era this connection found (to keep as the next connection's `prior`). */
  onVerdict?(verdict: EraVerdict): void;
  /**
   * How a stdio upstream's process is started: a sandbox's `launch` (see `createStdioSandbox`). Called for each
   * process (a probe that falls back to `initialize` starts two); its failure is the connection's.
   */
  launch(upstream: McpStdioUpstream): StdioLaunch;
  /** How long a stdio server may stay silent on `server/discover` before it is taken for a legacy one. Default 10 s. */
  probeTimeoutMs?: number;
}

/** How one request is sent on a connection. */
export interface UpstreamRequestOptions {
  signal: AbortSignal;
  /** The SDK's own timeout (legacy), a backup of `signal`'s deadline. */
  timeout: number;
  /** The upstream's progress on this request (a `progressToken` is sent only then). */
  onProgress?(progress: Progress): void;
  /**
   * The upstream's log messages about this request (modern upstreams only, which tie them to it; a legacy
   * session's log messages go to `ConnectionHooks.onLog`).
   */
  onLog?(message: McpLogMessage): void;
  /**
   * Answers a legacy upstream's requests for input made while this request runs (the connection must be
   * `interactive`). Without it, such a request is refused.
   */
  onInputRequest?(request: InputRequest): Promise<InputResponse>;
  /** What this request tells a modern upstream the client can answer (default: nothing). */
  clientCapabilities?: ClientCapabilities;
  /**
   * The called tool's input schema (`tools/call`): a modern HTTP upstream gets the arguments it marks with
   * `x-mcp-header` as `Mcp-Param-*` headers.
   */
  inputSchema?: unknown;
}

/** One MCP connection with one upstream, of either era: a legacy session, or a modern upstream's address. */
export interface UpstreamConnection {
  /** `modern` (2026-07-28, stateless) or `legacy` (an `initialize`d session). */
  readonly era: McpEra;
  /** The revision spoken: `2026-07-28` or the one `initialize` negotiated. */
  readonly protocolVersion: string | undefined;
  readonly serverInfo: Implementation;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** True when the upstream was told it may ask for input (a legacy session's capabilities). */
  readonly interactive: boolean;
  /** The server process's pid (stdio only). */
  readonly pid: number | undefined;
  /** True once the process exited or the connection was closed. */
  readonly closed: boolean;
  /**
   * Sends one request and resolves with its raw JSON-RPC result (for a modern upstream possibly
   * `resultType: "input_required"`). Rejects with the SDK's errors (`McpError`, `StreamableHTTPError`), which
   * `requestFailure` turns into one sentence.
   */
  request(method: UpstreamMethod, params: JsonObject, options: UpstreamRequestOptions): Promise<JsonObject>;
  /**
   * Modern upstreams: opens a `subscriptions/listen` stream for the list-changed notifications of `kinds` and
   * calls `onChanged` for each; resolves when the stream ends (the server closed it, or `signal` aborted).
   * `undefined` on a legacy session, whose notifications arrive unasked (`ConnectionHooks.onListChanged`).
   */
  listen?(kinds: McpListKind[], onChanged: (kind: McpListKind) => void, signal: AbortSignal): Promise<void>;
  /**
   * Ends the connection: for stdio, closes stdin and waits for the server to exit (then SIGTERM, then
   * SIGKILL, as the SDK does), and ends any process it left behind; for a legacy HTTP session, ends the session
   * (DELETE) unless `sessionGone`. Idempotent.
   */
  close(options?: { sessionGone?: boolean }): Promise<void>;
}

/**
 * Starts (stdio) or reaches (HTTP) an upstream and finds its era: it probes with `server/discover` (a 2026-07-28
 * request) and keeps a modern upstream stateless; any answer that is not a modern one (an unknown method, an
 * HTTP 4xx without a modern JSON-RPC error, a stdio server silent for 10 s) makes it a legacy upstream, which
 * gets the `initialize` handshake (for stdio on a new process, or on the silent one, which may still be starting).
 * A `prior` verdict skips the probe.
 *
 * @throws TrestleError `Unavailable` with one sentence naming the server by its program name or origin: it
 * could not be started, exited, stayed silent, refused the handshake or could not be reached. The signal's
 * reason when `signal` aborts first. A failed start leaves no process behind.
 */
export async function openUpstreamConnection(
  upstream: McpUpstream,
  options: OpenConnectionOptions,
): Promise<UpstreamConnection> {
  const started = Date.now();
  if (options.prior?.era !== "legacy") {
    const modern = await openModern(upstream, options);
    if (!("running" in modern)) return modern;
    // The probe spent part of the handshake's time.
    const remainingMs = Math.max(1, options.handshakeTimeoutMs - (Date.now() - started));
    return openLegacy(upstream, options, remainingMs, modern.running);
  }
  return openLegacy(upstream, options, options.handshakeTimeoutMs);
}
