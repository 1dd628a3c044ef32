import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, Implementation } from "@modelcontextprotocol/sdk/types.js";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type CodeOutput,
  createCallScope,
  DEFAULT_UNARY_TIMEOUT_MS,
  healthFromProbeError,
  type JsonObject,
  type LogMessage,
  type PromptResult,
  type ResourceResult,
  type ServiceTarget,
  type ToolResult,
  TrestleError,
  targetAddress,
} from "@trestle/core";
import { createConnectionPool } from "./connection-pool.js";
import {
  type FailureSubject,
  failureSubject,
  isSessionGone,
  requestFailure,
  scrubUpstreamValue,
} from "./mcp-failure.js";
import type { McpUpstream } from "./mcp-upstream.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS } from "./timeouts.js";
import { parseMcpToolUri } from "./tool-uri.js";
import {
  type ConnectionHooks,
  type McpListKind,
  type McpLogMessage,
  openUpstreamConnection,
  type UpstreamConnection,
} from "./upstream-connection.js";

/** A logging message from an upstream, with the target it came through. */
export interface McpUpstreamLogEvent {
  target: ServiceTarget;
  /** The upstream's safe name: `'node'` or `at https://host`. */
  upstream: string;
  message: McpLogMessage;
}

/** A line an upstream stdio server wrote to stderr, scrubbed of its arguments' and environment's values. */
export interface McpUpstreamStderrEvent {
  target: ServiceTarget;
  upstream: string;
  line: string;
}

/** An upstream said one of its lists changed (on a connection the transport holds open for calls). */
export interface McpListChangedEvent {
  target: ServiceTarget;
  upstream: string;
  kind: McpListKind;
}

/**
 * Where the transport finds the MCP server behind a target: the router's forwards. Asked on every call, so a
 * changed forward takes effect at once (the old process ends when its calls do).
 */
export interface McpUpstreamDirectory {
  /** The upstream behind `target`, or `undefined` when there is none (the call then fails with `NotFound`). */
  upstreamFor(target: ServiceTarget): McpUpstream | undefined;
  /**
   * How long the upstream behind `target` may take to answer `initialize` on a new connection, or `undefined`
   * for the transport's `handshakeTimeoutMs`.
   */
  handshakeTimeoutFor?(target: ServiceTarget): number | undefined;
  /**
   * The upstream's own name of the prompt a catalog knows as `name` (a forward may import names with a prefix),
   * or `undefined` to send `name` as it is.
   */
  upstreamPromptName?(target: ServiceTarget, name: string): string | undefined;
}

/** Options for {@link createMcpTransport}. Every field is optional. */
export interface McpTransportOptions {
  /** The router's forwards; wins over `upstreamFor`. */
  directory?: McpUpstreamDirectory;
  /**
   * The upstream MCP server behind a target, or `undefined` when there is none (the call then fails with
   * `NotFound`). The router keeps its forwards and answers from them. Called on every call, so a changed
   * forward takes effect at once (the old process ends when its calls do).
   *
   * Default: Streamable HTTP at `http://<host>:<port>/mcp` of the target.
   */
  upstreamFor?: (target: ServiceTarget) => McpUpstream | undefined;
  /** Default deadline of a call (handshake included). Default 10,000 ms; `CallOptions.timeoutMs` wins. */
  unaryTimeoutMs?: number;
  /** Deadline per target, over `unaryTimeoutMs`; `CallOptions.timeoutMs` wins over both. */
  timeouts?: (target: ServiceTarget) => { unaryMs?: number } | undefined;
  /**
   * How long a server may take to start and answer `initialize` on a connection the transport opens, unless the
   * directory says otherwise for its target. Default 30,000 ms ({@link DEFAULT_HANDSHAKE_TIMEOUT_MS}).
   */
  handshakeTimeoutMs?: number;
  /** A pooled connection with no call for this long is closed (the process ends). Default 300,000 ms. */
  idleTimeoutMs?: number;
  /** How the router introduces itself in `initialize`. Default `{ name: "trestle", version: "0.1.0" }`. */
  clientInfo?: Implementation;
  /**
   * Each logging message of an upstream served by a shared connection: a pooled stdio process or an HTTP
   * session serves many calls, and MCP does not tie a logging message to a request. A `per-call` process serves
   * one call, so its messages go to that call's `CallOptions.onLog` instead (here when it has none).
   */
  onLog?: (event: McpUpstreamLogEvent) => void;
  /** Each stderr line of a stdio upstream. Without it, stderr is discarded (never inherited). */
  onStderr?: (event: McpUpstreamStderrEvent) => void;
  /** Each `list_changed` notification on a pooled connection. */
  onListChanged?: (event: McpListChangedEvent) => void;
}

const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
const DEFAULT_CLIENT_INFO: Implementation = { name: "trestle", version: "0.1.0" };

function unimplemented(method: string): TrestleError {
  return new TrestleError(
    `MCP servers have no counterpart of ${method}, so a forwarded MCP server cannot serve it`,
    Code.Unimplemented,
  );
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // A listener that throws must not fail the call.
  }
}

/** An MCP logging message as core's {@link LogMessage}. */
function logMessage(message: McpLogMessage): LogMessage {
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
function toolResult(result: CallToolResult, subject: FailureSubject): ToolResult {
  const out: ToolResult = { content: (result.content ?? []) as ToolResult["content"] };
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent as JsonObject;
  if (result._meta !== undefined) out._meta = result._meta as JsonObject;
  if (result.isError !== true) return out;
  out.isError = true;
  const scrubbed = scrubUpstreamValue(out, subject.secrets);
  return typeof scrubbed === "string"
    ? { content: [{ type: "text", text: scrubbed }], isError: true }
    : scrubbed;
}

/**
 * Creates a {@link BridgeTransport} that fronts existing MCP servers, reached over stdio (spawned) or Streamable
 * HTTP, with the MCP SDK client. Calls map to MCP one to one, nothing encoded on the way:
 *
 * - `callTool` → `tools/call` of the tool the call's `tool.uri` names (`mcp://<forward>/tools/<name>`, see
 *   {@link mcpToolUri}), with the call's JSON `arguments` as they are; the result's content blocks (text, image,
 *   audio, embedded resource, resource link), `structuredContent`, `_meta` and `isError` come back as they are.
 * - `readResource` → `resources/read` of the call's `uri`: the contents (text or blob, each with its own URI and
 *   MIME type) and `_meta` as they are.
 * - `getPrompt` → `prompts/get` of the prompt's name on the upstream (the directory's
 *   `upstreamPromptName`, else the prompt's own name).
 * - `probeHealth` → `ping`: healthy when answered; `down` when the server cannot be started or reached.
 * - `executeCode`, `provision` → `Unimplemented`, naming the method: MCP has no counterpart.
 *
 * Per call: `CallOptions.onProgress` gets the upstream's progress (a `progressToken` is sent only then);
 * `onLog` gets the logging messages of a `per-call` process; `onInputRequest`, when present, answers a
 * `per-call` process's `elicitation/create`, `sampling/createMessage` and `roots/list` (only then does the
 * connection declare those capabilities; a pooled connection serves many calls and declares none, since MCP
 * does not tie such a request to one call). Cancelling `signal` sends `notifications/cancelled` upstream.
 *
 * Failures reject with a `TrestleError` whose message is one sentence that names the server by its program
 * name or URL origin only; text from the server is scrubbed of the upstream's argument, environment and header
 * values.
 *
 * Stdio upstreams in `pooled` mode keep one process per target and upstream, serving concurrent calls at
 * once, closed after `idleTimeoutMs` without calls and started again by the next call after it dies; `per-call`
 * mode spawns a process for each call. HTTP upstreams keep one session, initialised again (and the call sent
 * again, once) when the server no longer knows it. `release(target)` and `close()` end the processes, and any
 * process they started.
 *
 * @example
 * ```ts
 * const transport = createMcpTransport({ directory: forwards });
 * const result = await transport.callTool(
 *   { tool: { name: "ev_get-sum", type: "forward.everything", uri: mcpToolUri("everything", "get-sum") },
 *     arguments: { a: 1, b: 2 } },
 *   target,
 * );
 * ```
 */
export function createMcpTransport(options: McpTransportOptions = {}): BridgeTransport {
  const { directory } = options;
  const upstreamFor = directory
    ? (target: ServiceTarget) => directory.upstreamFor(target)
    : (options.upstreamFor ??
      ((target: ServiceTarget): McpUpstream => ({
        kind: "http",
        url: `http://${targetAddress(target)}/mcp`,
      })));
  const defaultHandshakeTimeoutMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const handshakeTimeoutFor = (target: ServiceTarget) =>
    directory?.handshakeTimeoutFor?.(target) ?? defaultHandshakeTimeoutMs;
  const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
  /** Per-call connections in use, so that close() and release() can end them too. */
  const perCall = new Set<{ targetId: string; connection: UpstreamConnection }>();
  const teardowns = new Set<Promise<void>>();
  let closed = false;

  /** What a connection reports; `callOptions` only for a connection that serves one call. */
  function hooksFor(
    target: ServiceTarget,
    subject: FailureSubject,
    callOptions: CallOptions | undefined,
    pooled: boolean,
  ): ConnectionHooks {
    const hooks: ConnectionHooks = {};
    const { onLog, onStderr, onListChanged } = options;
    const onCallLog = callOptions?.onLog;
    if (onCallLog) {
      hooks.onLog = (message) => onCallLog(logMessage(message));
    } else if (onLog) {
      hooks.onLog = (message) => onLog({ target, upstream: subject.label, message });
    }
    if (onStderr) hooks.onStderr = (line) => onStderr({ target, upstream: subject.label, line });
    if (onListChanged && pooled) {
      hooks.onListChanged = (kind) => onListChanged({ target, upstream: subject.label, kind });
    }
    return hooks;
  }

  const pool = createConnectionPool({
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    open(target, upstream, onClosed) {
      const subject = failureSubject(upstream);
      return openUpstreamConnection(upstream, {
        subject,
        clientInfo,
        handshakeTimeoutMs: handshakeTimeoutFor(target),
        hooks: { ...hooksFor(target, subject, undefined, true), onClosed },
      });
    },
  });

  function resolveUpstream(target: ServiceTarget): McpUpstream {
    if (closed) throw new TrestleError("The MCP transport is closed", Code.Unavailable);
    const upstream = upstreamFor(target);
    if (!upstream) {
      throw new TrestleError(
        `No MCP server is configured behind service '${target.serviceName}' (id ${target.id})`,
        Code.NotFound,
      );
    }
    return upstream;
  }

  function deadlineFor(target: ServiceTarget, callOptions: CallOptions | undefined): number {
    return (
      callOptions?.timeoutMs ??
      options.timeouts?.(target)?.unaryMs ??
      options.unaryTimeoutMs ??
      DEFAULT_UNARY_TIMEOUT_MS
    );
  }

  /**
   * Runs `request` on a connection to the target's upstream, within the call's deadline and signal, and turns
   * every failure into one sentence. An HTTP upstream that forgot its session gets a new one, and the request
   * is sent again once (the server did not process it: it did not know the session).
   */
  async function withUpstream<T>(
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
    method: string,
    request: (
      connection: UpstreamConnection,
      requestOptions: RequestOptions,
      subject: FailureSubject,
      meta: { progressToken?: string },
    ) => Promise<T>,
  ): Promise<T> {
    const upstream = resolveUpstream(target);
    const subject = failureSubject(upstream);
    const deadlineMs = deadlineFor(target, callOptions);
    const scope = createCallScope(callOptions?.signal, deadlineMs);
    const started = Date.now();
    const onProgress = callOptions?.onProgress;
    const run = async (connection: UpstreamConnection): Promise<T> => {
      const requestOptions: RequestOptions = {
        signal: scope.signal,
        // The SDK's own timer only backs up the call's deadline, which fires first and names the method.
        timeout: Math.max(1, deadlineMs - (Date.now() - started)) + 1_000,
      };
      if (!onProgress) return request(connection, requestOptions, subject, {});
      const tracked = connection.trackProgress((progress) => {
        safely(() =>
          onProgress({
            progress: progress.progress,
            ...(progress.total !== undefined ? { total: progress.total } : {}),
            ...(progress.message !== undefined ? { message: progress.message } : {}),
          }),
        );
      });
      try {
        return await request(connection, requestOptions, subject, { progressToken: tracked.token });
      } finally {
        tracked.stop();
      }
    };
    try {
      if (upstream.kind === "stdio" && upstream.mode === "per-call") {
        return await perCallRequest(target, upstream, subject, scope.signal, callOptions, run);
      }
      for (let attempt = 0; ; attempt++) {
        const lease = await pool.acquire(target, upstream, scope.signal);
        try {
          return await run(lease.connection);
        } catch (error) {
          if (upstream.kind === "http" && attempt === 0 && isSessionGone(error) && !scope.signal.aborted) {
            lease.discard();
            continue;
          }
          throw error;
        } finally {
          lease.release();
        }
      }
    } catch (error) {
      if (error instanceof TrestleError && !scope.signal.aborted) throw error;
      throw requestFailure(error, subject, method, scope.signal, deadlineMs);
    } finally {
      scope.dispose();
    }
  }

  async function perCallRequest<T>(
    target: ServiceTarget,
    upstream: McpUpstream,
    subject: FailureSubject,
    signal: AbortSignal,
    callOptions: CallOptions | undefined,
    run: (connection: UpstreamConnection) => Promise<T>,
  ): Promise<T> {
    const onInputRequest = callOptions?.onInputRequest;
    const connection = await openUpstreamConnection(upstream, {
      subject,
      clientInfo,
      handshakeTimeoutMs: handshakeTimeoutFor(target),
      signal,
      hooks: hooksFor(target, subject, callOptions, false),
      ...(onInputRequest ? { onInputRequest: (request) => onInputRequest(request) } : {}),
    });
    const entry = { targetId: target.id, connection };
    perCall.add(entry);
    try {
      if (closed) throw new TrestleError("The MCP transport is closed", Code.Unavailable);
      return await run(connection);
    } finally {
      perCall.delete(entry);
      // The reply does not wait for the process to exit; close() does.
      const teardown = connection.close();
      teardowns.add(teardown);
      void teardown.finally(() => teardowns.delete(teardown));
    }
  }

  return {
    async callTool(call, target, callOptions): Promise<ToolResult> {
      // A malformed reference fails before any server is started for it.
      const { toolName } = parseMcpToolUri(call.tool.uri);
      return withUpstream(
        target,
        callOptions,
        "tools/call",
        async (connection, requestOptions, subject, meta) => {
          const params = { name: toolName, arguments: call.arguments };
          const result = await connection.client.callTool(
            meta.progressToken ? { ...params, _meta: { progressToken: meta.progressToken } } : params,
            undefined,
            requestOptions,
          );
          return toolResult(result as CallToolResult, subject);
        },
      );
    },
    readResource(read, target, callOptions): Promise<ResourceResult> {
      return withUpstream(target, callOptions, "resources/read", async (connection, requestOptions) => {
        const result = await connection.client.readResource({ uri: read.uri }, requestOptions);
        const out: ResourceResult = { contents: result.contents as ResourceResult["contents"] };
        if (result._meta !== undefined) out._meta = result._meta as JsonObject;
        return out;
      });
    },
    getPrompt(get, target, callOptions): Promise<PromptResult> {
      const name = directory?.upstreamPromptName?.(target, get.prompt.name) ?? get.prompt.name;
      return withUpstream(target, callOptions, "prompts/get", async (connection, requestOptions) => {
        const result = await connection.client.getPrompt({ name, arguments: get.arguments }, requestOptions);
        const out: PromptResult = { messages: result.messages as PromptResult["messages"] };
        if (result.description !== undefined) out.description = result.description;
        if (result._meta !== undefined) out._meta = result._meta as JsonObject;
        return out;
      });
    },
    executeCode(): AsyncIterable<CodeOutput> {
      const error = unimplemented("executeCode");
      return {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
      };
    },
    async provision() {
      throw unimplemented("provision");
    },
    async probeHealth(target, callOptions) {
      try {
        await withUpstream(target, callOptions, "ping", (connection, requestOptions) =>
          connection.client.ping(requestOptions),
        );
        return { state: "healthy" };
      } catch (error) {
        return healthFromProbeError(error);
      }
    },
    release(target) {
      pool.releaseTarget(target.id);
      for (const entry of [...perCall]) {
        if (entry.targetId === target.id) void entry.connection.close();
      }
    },
    async close() {
      closed = true;
      const ending = [...perCall].map((entry) => entry.connection.close());
      await Promise.all([pool.close(), ...ending, ...teardowns]);
      while (teardowns.size > 0) await Promise.all([...teardowns]);
    },
  };
}
