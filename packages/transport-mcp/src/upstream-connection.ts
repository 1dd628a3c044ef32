import type { Stream } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type Implementation,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  Code,
  type InputRequest,
  type InputResponse,
  type JsonObject,
  scrubSecrets,
  TrestleError,
} from "@trestle/core";
import { type FailureSubject, handshakeFailure, scrubUpstreamValue } from "./mcp-failure.js";
import type { McpUpstream } from "./mcp-upstream.js";
import { descendantPids, isProcessAlive, killAll } from "./process-tree.js";

/** Which of an upstream's lists changed (`notifications/<kind>/list_changed`). */
export type McpListKind = "tools" | "resources" | "prompts";

/** A logging message from an upstream (`notifications/message`), its data already scrubbed of the upstream's secrets. */
export type McpLogMessage = LoggingMessageNotification["params"];

/** What a connection reports while it lives. Each callback must not throw. */
export interface ConnectionHooks {
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

/** How to open a connection. */
export interface OpenConnectionOptions {
  subject: FailureSubject;
  clientInfo: Implementation;
  handshakeTimeoutMs: number;
  /** Aborts the handshake (its reason is thrown). */
  signal?: AbortSignal;
  hooks?: ConnectionHooks;
  /**
   * Answers the upstream's requests for input (`elicitation/create`, `sampling/createMessage`, `roots/list`).
   * Only with it does the connection declare the `elicitation`, `sampling` and `roots` capabilities: without
   * it the upstream knows not to ask.
   */
  onInputRequest?(request: InputRequest): Promise<InputResponse>;
}

/** One initialised MCP client session with one upstream. */
export interface UpstreamConnection {
  readonly client: Client;
  /** The server process's pid (stdio only). */
  readonly pid: number | undefined;
  /** True once the process exited or the connection was closed. */
  readonly closed: boolean;
  /**
   * A progress token routed to `listener` until `stop()`: send it as `_meta.progressToken` of a request.
   * The SDK's own routing drops progress that arrives in the same read as the result (it forgets the token on
   * the result, before it handles the notifications read with it); this one forgets it only when told.
   */
  trackProgress(listener: (progress: Progress) => void): { token: string; stop(): void };
  /**
   * Ends the connection: for stdio, closes stdin and waits for the server to exit (then SIGTERM, then
   * SIGKILL, as the SDK does), and ends any process it left behind; for HTTP, ends the session (DELETE) unless
   * `sessionGone`. Idempotent.
   */
  close(options?: { sessionGone?: boolean }): Promise<void>;
}

/** How long a DELETE of an HTTP session may take at close before the connection is dropped anyway. */
const TERMINATE_SESSION_BOUND_MS = 1_000;
/** The longest stderr line passed on; longer ones are cut, since a line is a log entry, not a payload. */
const MAX_STDERR_LINE = 4_096;

/** The SDK's stdio transport, remembering the pid it spawned (the SDK forgets it as soon as it closes). */
class PidTrackingStdioTransport extends StdioClientTransport {
  spawnedPid: number | undefined;
  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
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

/**
 * Hands the upstream's server-to-client requests to `onInputRequest` and answers with what it says: an
 * elicitation's action (and content when accepted) as it is; a sampling or roots result when accepted, else a
 * JSON-RPC error.
 */
function relayInputRequests(
  client: Client,
  onInputRequest: (request: InputRequest) => Promise<InputResponse>,
): void {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const response = await onInputRequest({ kind: "elicitation", params: request.params as JsonObject });
    return {
      action: response.action,
      ...(response.action === "accept" && response.result ? { content: response.result } : {}),
    } as never;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const response = await onInputRequest({ kind: "sampling", params: request.params as JsonObject });
    if (response.action !== "accept" || !response.result) throw refused("sampling/createMessage", response);
    return response.result as never;
  });
  client.setRequestHandler(ListRootsRequestSchema, async (request) => {
    const response = await onInputRequest({
      kind: "roots",
      params: (request.params ?? {}) as JsonObject,
    });
    if (response.action !== "accept" || !response.result) throw refused("roots/list", response);
    return response.result as never;
  });
}

/**
 * Starts (stdio) or reaches (HTTP) an upstream and completes the MCP handshake within
 * `handshakeTimeoutMs`.
 *
 * @throws TrestleError `Unavailable` with one sentence naming the server by its program name or origin: it
 * could not be started, exited, stayed silent, refused the handshake or could not be reached. The signal's
 * reason when `signal` aborts first. A failed start leaves no process behind.
 */
export async function openUpstreamConnection(
  upstream: McpUpstream,
  options: OpenConnectionOptions,
): Promise<UpstreamConnection> {
  const { subject, hooks = {} } = options;
  const capabilities: ClientCapabilities = options.onInputRequest
    ? { elicitation: {}, sampling: {}, roots: { listChanged: false } }
    : {};
  const client = new Client(options.clientInfo, { capabilities });
  if (options.onInputRequest) relayInputRequests(client, options.onInputRequest);
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
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    const params = {
      ...notification.params,
      data: scrubUpstreamValue(notification.params.data, subject.secrets),
    };
    if (hooks.onLog) safely(() => hooks.onLog?.(params));
  });
  const progressRoutes = new Map<string | number, (progress: Progress) => void>();
  let nextProgressToken = 0;
  client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
    const { progressToken, ...progress } = notification.params;
    const route = progressRoutes.get(progressToken);
    if (route) safely(() => route(progress));
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
    stdio = new PidTrackingStdioTransport({
      command: upstream.command,
      args: upstream.args ?? [],
      ...(upstream.env ? { env: upstream.env } : {}),
      ...(upstream.cwd ? { cwd: upstream.cwd } : {}),
      // Never "inherit": a server's stderr may echo its argv. Piped stderr is always read, or a chatty server
      // would block once the pipe fills.
      stderr: hooks.onStderr ? "pipe" : "ignore",
    });
    if (hooks.onStderr) {
      const onStderr = hooks.onStderr;
      pipeStderrLines(stdio.stderr, (line) => safely(() => onStderr(scrubSecrets(line, subject.secrets))));
    }
  } else {
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
    http = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { ...(upstream.headers ?? {}) } },
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
      timeout: options.handshakeTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    await forceEnd();
    if (options.signal?.aborted) throw TrestleError.from(options.signal.reason, Code.Canceled);
    throw handshakeFailure(error, subject, options.handshakeTimeoutMs);
  }

  let closing: Promise<void> | undefined;
  return {
    client,
    get pid() {
      return stdio?.spawnedPid;
    },
    get closed() {
      return closed;
    },
    trackProgress(listener) {
      const token = `trestle-progress-${++nextProgressToken}`;
      progressRoutes.set(token, listener);
      return { token, stop: () => progressRoutes.delete(token) };
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
