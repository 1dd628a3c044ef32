import type { Stream } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { DiscoverResultSchema } from "@modelcontextprotocol/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  type Implementation,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListRootsRequestSchema,
  ListToolsResultSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Code, type InputRequest, type InputResponse, type JsonObject, TrestleError } from "@trestle/core";
import { scrubSecrets } from "@trestle/core/redaction";
import { createParser } from "eventsource-parser";
import { type FailureSubject, handshakeFailure, scrubUpstreamValue } from "./mcp-failure.js";
import { mcpParamHeaders } from "./mcp-param-headers.js";
import type { McpStdioUpstream, McpUpstream } from "./mcp-upstream.js";
import {
  createHttpModernChannel,
  createStdioModernChannel,
  type ModernChannel,
  type ModernNotification,
} from "./modern-channel.js";
import {
  type McpEra,
  MODERN_ERROR_CODES,
  MODERN_PROTOCOL_VERSION,
  modernMeta,
  SERVER_INFO_META_KEY,
} from "./modern-era.js";
import { descendantPids, isProcessAlive, killAll } from "./process-tree.js";
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

/** How long a DELETE of an HTTP session may take at close before the connection is dropped anyway. */
const TERMINATE_SESSION_BOUND_MS = 1_000;
/** The longest stderr line passed on; longer ones are cut, since a line is a log entry, not a payload. */
const MAX_STDERR_LINE = 4_096;
/**
 * How long a stdio server may stay silent on `server/discover` before it is taken for a legacy server (the spec
 * allows a legacy server not to answer an unknown request before `initialize`).
 */
const STDIO_PROBE_TIMEOUT_MS = 10_000;

const LEGACY_RESULT_SCHEMAS = {
  "tools/call": CallToolResultSchema,
  "prompts/get": GetPromptResultSchema,
  "resources/read": ReadResourceResultSchema,
  "tools/list": ListToolsResultSchema,
  "resources/list": ListResourcesResultSchema,
  "resources/templates/list": ListResourceTemplatesResultSchema,
  "prompts/list": ListPromptsResultSchema,
  ping: EmptyResultSchema,
} as const;

/** The SDK's stdio transport, remembering the pid it spawned (the SDK forgets it as soon as it closes). */
class PidTrackingStdioTransport extends StdioClientTransport {
  spawnedPid: number | undefined;
  /** The revision the handshake negotiated: the SDK client tells a transport that listens (stdio needs none). */
  protocolVersion: string | undefined;
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }
  /** Its process runs already and passes to the next client that connects: that client's start() starts nothing. */
  private handedOver = false;
  override async start(): Promise<void> {
    if (this.handedOver) {
      this.handedOver = false;
      return;
    }
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
  }
  /** Detaches the client that started the process, so that another may connect to the same process. */
  handOver(): void {
    this.onmessage = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
    this.handedOver = true;
  }
}

function pipeStderrLines(stream: Stream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let pending = "";
  const decoder = new StringDecoder("utf8");
  stream.on("data", (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline).replace(/\r$/, "");
      pending = pending.slice(newline + 1);
      if (line !== "") onLine(line.slice(0, MAX_STDERR_LINE));
      newline = pending.indexOf("\n");
    }
    if (pending.length > MAX_STDERR_LINE) {
      onLine(pending.slice(0, MAX_STDERR_LINE));
      pending = "";
    }
  });
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // A listener that throws must not take the connection down with it.
  }
}

/** A JSON-RPC error for an input request the router's client declined or cancelled. */
function refused(method: string, response: InputResponse): McpError {
  return new McpError(-1, `The client answered ${method} with '${response.action}'`);
}

function stdioTransport(
  launch: StdioLaunch,
  subject: FailureSubject,
  hooks: ConnectionHooks,
): PidTrackingStdioTransport {
  const transport = new PidTrackingStdioTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    ...(launch.cwd ? { cwd: launch.cwd } : {}),
    // Never "inherit": a server's stderr may echo its argv. Piped stderr is always read, or a chatty server
    // would block once the pipe fills.
    stderr: hooks.onStderr ? "pipe" : "ignore",
  });
  if (hooks.onStderr) {
    const onStderr = hooks.onStderr;
    pipeStderrLines(transport.stderr, (line) => safely(() => onStderr(scrubSecrets(line, subject.secrets))));
  }
  return transport;
}

function parseUrl(upstream: Extract<McpUpstream, { kind: "http" }>, subject: FailureSubject): URL {
  let url: URL;
  try {
    url = new URL(upstream.url);
  } catch {
    throw new TrestleError(
      `The MCP server ${subject.label} has a URL that cannot be parsed`,
      Code.InvalidArgument,
    );
  }
  if (url.username || url.password) {
    throw new TrestleError(
      `The URL of the MCP server ${subject.label} holds a user name or password, which fetch refuses to send; pass credentials in a header instead`,
      Code.InvalidArgument,
    );
  }
  return url;
}

/**
 * Ends a stdio process and whatever it started: closes stdin, waits, then kills what is left; `force` kills at
 * once (a server that stayed silent will not exit politely either).
 */
async function endProcess(
  transport: PidTrackingStdioTransport,
  alive: boolean,
  force = false,
): Promise<void> {
  const pid = transport.spawnedPid;
  const left = pid !== undefined && alive ? descendantPids(pid) : [];
  if (force && pid !== undefined && alive) killAll([...left, pid]);
  await transport.close().catch(() => undefined);
  const stragglers = left.filter(isProcessAlive);
  killAll(stragglers);
  // SIGKILL is delivered asynchronously: close() promises that the processes are gone when it resolves.
  for (const end = Date.now() + 2_000; Date.now() < end && stragglers.some(isProcessAlive); ) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Routes progress tokens to listeners until told to stop (the SDK's own routing drops late progress). */
function progressRouter() {
  const routes = new Map<string | number, (progress: Progress) => void>();
  let next = 0;
  return {
    route(token: string | number, progress: Progress) {
      const listener = routes.get(token);
      if (listener) safely(() => listener(progress));
    },
    track(listener: (progress: Progress) => void): { token: string; stop(): void } {
      const token = `trestle-progress-${++next}`;
      routes.set(token, listener);
      return { token, stop: () => routes.delete(token) };
    },
  };
}

function logMessageOf(params: JsonObject | undefined, subject: FailureSubject): McpLogMessage {
  const p = (params ?? {}) as McpLogMessage;
  return { ...p, data: scrubUpstreamValue(p.data, subject.secrets) };
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

/** What a probe's failure says about the era: `legacy`, or a failure to report as it is. */
function probeVerdict(error: unknown): "legacy" | "fail" {
  if (error instanceof McpError) {
    if (!MODERN_ERROR_CODES.has(error.code)) return "legacy";
    // A modern server that does not speak 2026-07-28 but names an older revision it does: use that one.
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    return Array.isArray(supported) &&
      supported.some((v) => typeof v === "string" && v < MODERN_PROTOCOL_VERSION)
      ? "legacy"
      : "fail";
  }
  if (error instanceof StreamableHTTPError) {
    const status = error.code ?? 0;
    return status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429
      ? "legacy"
      : "fail";
  }
  return "fail";
}

/** A modern connection, or `undefined` when the upstream turned out to be legacy (nothing of it left running). */
async function openModern(
  upstream: McpUpstream,
  options: OpenConnectionOptions,
): Promise<UpstreamConnection | { running: PidTrackingStdioTransport | undefined }> {
  const { subject, hooks = {} } = options;
  const probeTimeoutMs =
    upstream.kind === "stdio"
      ? Math.min(options.handshakeTimeoutMs, options.probeTimeoutMs ?? STDIO_PROBE_TIMEOUT_MS)
      : options.handshakeTimeoutMs;
  let channel: ModernChannel;
  let stdio: PidTrackingStdioTransport | undefined;
  let closedCalled = false;
  let exited = false;
  /** Set once the upstream proved modern: a probe's process that ends is no connection's end. */
  let established = false;
  const onClosed = () => {
    exited = true;
    if (closedCalled || !established) return;
    closedCalled = true;
    if (hooks.onClosed) safely(hooks.onClosed);
  };
  const progress = progressRouter();
  const stray = (notification: ModernNotification) => {
    if (notification.method === "notifications/progress") {
      const { progressToken, ...rest } = (notification.params ?? {}) as JsonObject;
      progress.route(progressToken as string, rest as unknown as Progress);
    } else if (notification.method === "notifications/message" && hooks.onLog) {
      const message = logMessageOf(notification.params, subject);
      safely(() => hooks.onLog?.(message));
    }
  };
  if (upstream.kind === "stdio") {
    stdio = stdioTransport(options.launch(upstream), subject, hooks);
    const transport = stdio;
    channel = createStdioModernChannel(transport, {
      pid: () => transport.spawnedPid,
      onStrayNotification: stray,
      onClosed,
    });
    try {
      await transport.start();
    } catch (error) {
      await endProcess(transport, false);
      throw handshakeFailure(error, subject, options.handshakeTimeoutMs);
    }
  } else {
    channel = createHttpModernChannel(parseUrl(upstream, subject), { ...(upstream.headers ?? {}) });
  }
  const identity = { clientInfo: options.clientInfo, capabilities: {} };

  let discovered: DiscoveredServer;
  if (options.prior?.era === "modern" && upstream.kind === "http") {
    discovered = options.prior.discover;
  } else {
    // A timer of its own, not AbortSignal.timeout: Node 20 may collect a timeout signal that only an
    // AbortSignal.any holds, and then the probe never ends (nodejs/node#57736).
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException("The probe timed out", "TimeoutError")),
      probeTimeoutMs,
    );
    const probe = AbortSignal.any([deadline.signal, ...(options.signal ? [options.signal] : [])]);
    try {
      const result = await channel.request(
        "server/discover",
        { _meta: modernMeta(identity) },
        { signal: probe },
      );
      const parsed = DiscoverResultSchema.safeParse(result);
      if (!parsed.success || !parsed.data.supportedVersions.includes(MODERN_PROTOCOL_VERSION)) {
        if (stdio) await endProcess(stdio, true);
        return { running: undefined };
      }
      const meta = (result._meta ?? {}) as JsonObject;
      const serverInfo = (meta[SERVER_INFO_META_KEY] ?? { name: "", version: "" }) as Implementation;
      discovered = {
        serverInfo,
        capabilities: parsed.data.capabilities as ServerCapabilities,
        ...(parsed.data.instructions !== undefined ? { instructions: parsed.data.instructions } : {}),
      };
    } catch (error) {
      if (options.signal?.aborted) {
        if (stdio) await endProcess(stdio, true);
        throw TrestleError.from(options.signal.reason, Code.Canceled);
      }
      const timedOut = probe.aborted;
      const fallsBack =
        (timedOut && upstream.kind === "stdio" && probeTimeoutMs < options.handshakeTimeoutMs) ||
        (!timedOut && probeVerdict(error) === "legacy");
      if (stdio && timedOut && fallsBack) {
        // Silent: a legacy server that ignores requests before `initialize`, or one still starting (a first
        // `npx -y` or `uvx` downloading its package, which a kill would leave half written). It gets `initialize`
        // on the process it runs already.
        stdio.handOver();
        return { running: stdio };
      }
      if (stdio) {
        // A silent server is killed at once; the failure need not wait to see it gone (the signal is sent).
        const ending = endProcess(stdio, true, timedOut);
        if (fallsBack || !timedOut) await ending;
      }
      if (fallsBack) return { running: undefined };
      if (timedOut) {
        throw new TrestleError(
          `The MCP server ${subject.label} did not complete the MCP handshake within ${options.handshakeTimeoutMs} ms`,
          Code.Unavailable,
        );
      }
      if (error instanceof McpError && MODERN_ERROR_CODES.has(error.code)) {
        throw new TrestleError(
          `The MCP server ${subject.label} speaks no MCP revision this router speaks (it answered error ${error.code})`,
          Code.Unavailable,
        );
      }
      throw handshakeFailure(error, subject, options.handshakeTimeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }
  options.onVerdict?.({ era: "modern", discover: discovered });
  established = true;

  let closing: Promise<void> | undefined;
  const listenRequest = (
    kinds: McpListKind[],
    onChanged: (kind: McpListKind) => void,
    signal: AbortSignal,
  ): Promise<void> => {
    const filter: JsonObject = {};
    for (const kind of kinds) filter[`${kind}ListChanged`] = true;
    return channel
      .request(
        "subscriptions/listen",
        { notifications: filter, _meta: modernMeta(identity) },
        {
          signal,
          onNotification(notification) {
            const kind = /^notifications\/(tools|resources|prompts)\/list_changed$/.exec(
              notification.method,
            )?.[1];
            if (kind) safely(() => onChanged(kind as McpListKind));
          },
        },
      )
      .then(
        () => undefined,
        (error: unknown) => {
          if (!signal.aborted) throw error;
        },
      );
  };
  return {
    era: "modern",
    protocolVersion: MODERN_PROTOCOL_VERSION,
    serverInfo: discovered.serverInfo,
    capabilities: discovered.capabilities,
    instructions: discovered.instructions,
    interactive: false,
    get pid() {
      return stdio?.spawnedPid;
    },
    get closed() {
      return channel.closed;
    },
    async request(method, params, requestOptions) {
      if (method === "ping") {
        // 2026-07-28 has no ping: asking what the server is answers whether it runs.
        return channel.request(
          "server/discover",
          { _meta: modernMeta(identity) },
          { signal: requestOptions.signal },
        );
      }
      const tracked = requestOptions.onProgress ? progress.track(requestOptions.onProgress) : undefined;
      const { onLog } = requestOptions;
      const meta = modernMeta(
        {
          clientInfo: options.clientInfo,
          capabilities: requestOptions.clientCapabilities ?? {},
          ...(onLog ? { logLevel: "debug" } : {}),
        },
        tracked ? { progressToken: tracked.token } : undefined,
      );
      try {
        return await channel.request(
          method,
          { ...params, _meta: { ...((params._meta as JsonObject | undefined) ?? {}), ...meta } },
          {
            signal: requestOptions.signal,
            ...(method === "tools/call" &&
            requestOptions.inputSchema !== undefined &&
            upstream.kind === "http"
              ? {
                  headers: mcpParamHeaders(
                    requestOptions.inputSchema,
                    (params.arguments ?? {}) as JsonObject,
                  ),
                }
              : {}),
            onNotification(notification) {
              if (notification.method === "notifications/message" && onLog) {
                const message = logMessageOf(notification.params, subject);
                safely(() => onLog(message));
              } else {
                stray(notification);
              }
            },
          },
        );
      } finally {
        tracked?.stop();
      }
    },
    listen: listenRequest,
    close() {
      closing ??= (async () => {
        await channel.close();
        if (stdio) await endProcess(stdio, !exited);
        onClosed();
      })();
      return closing;
    },
  };
}

/**
 * Hands a legacy upstream's server-to-client requests to the `onInputRequest` of the request they belong to and
 * answers with what it says: an elicitation's action (and content when accepted) as it is; a sampling or roots
 * result when accepted, else a JSON-RPC error.
 */
function relayInputRequests(
  client: Client,
  handlerFor: (
    serverRequestId: string | number,
  ) => ((request: InputRequest) => Promise<InputResponse>) | undefined,
): void {
  const ask = async (method: string, kind: InputRequest["kind"], params: unknown, id: string | number) => {
    const handler = handlerFor(id);
    if (!handler) {
      throw new McpError(
        -32603,
        `The router cannot tell which of its calls ${method} belongs to, or that call cannot answer it`,
      );
    }
    return handler({ kind, params: (params ?? {}) as JsonObject } as InputRequest);
  };
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const response = await ask("elicitation/create", "elicitation", request.params, extra.requestId);
    return {
      action: response.action,
      ...(response.action === "accept" && response.result ? { content: response.result } : {}),
    } as never;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    const response = await ask("sampling/createMessage", "sampling", request.params, extra.requestId);
    if (response.action !== "accept" || !response.result) throw refused("sampling/createMessage", response);
    return response.result as never;
  });
  client.setRequestHandler(ListRootsRequestSchema, async (request, extra) => {
    const response = await ask("roots/list", "roots", request.params, extra.requestId);
    if (response.action !== "accept" || !response.result) throw refused("roots/list", response);
    return response.result as never;
  });
}

/**
 * A fetch for the SDK's HTTP transport that reads along the SSE stream of each POST and records which request of
 * the server arrived on the stream of which of our requests (by the request's progress token): on Streamable
 * HTTP, a server sends a request for input on the stream of the call it belongs to.
 */
function correlatingFetch(origins: Map<string | number, string>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method !== "POST" || typeof init.body !== "string" || !response.body) return response;
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
    let token: string | undefined;
    try {
      const sent = JSON.parse(init.body) as { params?: { _meta?: { progressToken?: unknown } } };
      const candidate = sent.params?._meta?.progressToken;
      if (typeof candidate === "string") token = candidate;
    } catch {
      return response;
    }
    if (token === undefined) return response;
    const owner = token;
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent: ({ data }) => {
        try {
          const message = JSON.parse(data) as { id?: unknown; method?: unknown };
          if (
            typeof message.method === "string" &&
            (typeof message.id === "string" || typeof message.id === "number")
          ) {
            origins.set(message.id, owner);
          }
        } catch {
          // Not JSON: the SDK's parser will say so.
        }
      },
    });
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(tap), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** A legacy session: the `initialize` handshake on the SDK v1 client, over stdio or Streamable HTTP. */
async function openLegacy(
  upstream: McpUpstream,
  options: OpenConnectionOptions,
  remainingMs: number,
  running?: PidTrackingStdioTransport,
): Promise<UpstreamConnection> {
  const { subject, hooks = {} } = options;
  const interactive = options.interactive === true;
  const capabilities: ClientCapabilities = interactive
    ? { elicitation: {}, sampling: {}, roots: { listChanged: false } }
    : {};
  const client = new Client(options.clientInfo, { capabilities });
  /** The `onInputRequest` of each request in flight that has one, by the request's progress token. */
  const askers = new Map<string, (request: InputRequest) => Promise<InputResponse>>();
  /** Which of our requests (by token) each server request arrived with (HTTP only). */
  const origins = new Map<string | number, string>();
  if (interactive) {
    relayInputRequests(client, (serverRequestId) => {
      const owner = origins.get(serverRequestId);
      if (owner !== undefined) {
        origins.delete(serverRequestId);
        return askers.get(owner);
      }
      // stdio has no per-request stream: a request can only be tied to the one call in flight.
      return askers.size === 1 ? [...askers.values()][0] : undefined;
    });
  }
  let closed = false;
  let onClosedCalled = false;
  const ended = new Promise<void>((resolve) => {
    client.onclose = () => {
      closed = true;
      resolve();
      if (!onClosedCalled) {
        onClosedCalled = true;
        if (hooks.onClosed) safely(hooks.onClosed);
      }
    };
  });
  // Failures that matter to a call reach its pending request; these are for whoever watches the connection.
  client.onerror = (error) => {
    if (hooks.onError) safely(() => hooks.onError?.(error));
  };
  // MCP before 2026-07-28 does not tie a logging message to a request: they are the connection's.
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    const params = logMessageOf(notification.params as JsonObject, subject);
    if (hooks.onLog) safely(() => hooks.onLog?.(params));
  });
  const progress = progressRouter();
  client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
    const { progressToken, ...rest } = notification.params;
    progress.route(progressToken, rest);
  });
  for (const [schema, kind] of [
    [ToolListChangedNotificationSchema, "tools"],
    [ResourceListChangedNotificationSchema, "resources"],
    [PromptListChangedNotificationSchema, "prompts"],
  ] as const) {
    client.setNotificationHandler(schema, () => {
      if (hooks.onListChanged) safely(() => hooks.onListChanged?.(kind));
    });
  }

  let stdio: PidTrackingStdioTransport | undefined;
  let http: StreamableHTTPClientTransport | undefined;
  if (upstream.kind === "stdio") {
    stdio = running ?? stdioTransport(options.launch(upstream), subject, hooks);
  } else {
    http = new StreamableHTTPClientTransport(parseUrl(upstream, subject), {
      requestInit: { headers: { ...(upstream.headers ?? {}) } },
      ...(interactive ? { fetch: correlatingFetch(origins) } : {}),
    });
  }

  async function forceEnd(): Promise<void> {
    const pid = stdio?.spawnedPid;
    if (pid !== undefined) {
      killAll([...descendantPids(pid), pid]);
      await Promise.race([ended, new Promise((r) => setTimeout(r, 2_000).unref())]);
    }
    await client.close().catch(() => undefined);
  }

  try {
    await client.connect((stdio ?? http) as StdioClientTransport | StreamableHTTPClientTransport, {
      timeout: remainingMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    await forceEnd();
    if (options.signal?.aborted) throw TrestleError.from(options.signal.reason, Code.Canceled);
    throw handshakeFailure(error, subject, options.handshakeTimeoutMs);
  }
  const protocolVersion = (http?.protocolVersion ?? stdio?.protocolVersion ?? undefined) as
    | string
    | undefined;
  options.onVerdict?.({ era: "legacy", ...(protocolVersion ? { protocolVersion } : {}) });

  let closing: Promise<void> | undefined;
  return {
    era: "legacy",
    protocolVersion,
    get serverInfo() {
      return client.getServerVersion() ?? { name: "", version: "" };
    },
    get capabilities() {
      return client.getServerCapabilities() ?? {};
    },
    get instructions() {
      return client.getInstructions();
    },
    interactive,
    get pid() {
      return stdio?.spawnedPid;
    },
    get closed() {
      return closed;
    },
    async request(method, params, requestOptions) {
      const { onProgress, onInputRequest } = requestOptions;
      // A call that can answer input requests carries a token, which ties the server's requests to it (HTTP).
      const tracked =
        onProgress || (onInputRequest && interactive)
          ? progress.track(onProgress ?? (() => undefined))
          : undefined;
      if (tracked && onInputRequest && interactive) askers.set(tracked.token, onInputRequest);
      const sent = tracked
        ? {
            ...params,
            _meta: { ...((params._meta as JsonObject | undefined) ?? {}), progressToken: tracked.token },
          }
        : params;
      try {
        const result = await client.request(
          { method, params: sent } as never,
          LEGACY_RESULT_SCHEMAS[method],
          {
            signal: requestOptions.signal,
            timeout: requestOptions.timeout,
          },
        );
        return result as JsonObject;
      } finally {
        if (tracked) {
          tracked.stop();
          askers.delete(tracked.token);
        }
      }
    },
    close(closeOptions) {
      closing ??= (async () => {
        if (http) {
          if (!closeOptions?.sessionGone && !closed) {
            await Promise.race([
              http.terminateSession().catch(() => undefined),
              new Promise((r) => setTimeout(r, TERMINATE_SESSION_BOUND_MS).unref()),
            ]);
          }
          await client.close().catch(() => undefined);
          return;
        }
        const pid = stdio?.spawnedPid;
        const left = pid !== undefined && !closed ? descendantPids(pid) : [];
        await client.close().catch(() => undefined);
        const stragglers = left.filter(isProcessAlive);
        killAll(stragglers);
        // SIGKILL is delivered asynchronously: close() promises that the processes are gone when it resolves.
        for (const end = Date.now() + 2_000; Date.now() < end && stragglers.some(isProcessAlive); ) {
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      return closing;
    },
  };
}
