import { create } from "@bufbuild/protobuf";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Implementation } from "@modelcontextprotocol/sdk/types.js";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  createCallScope,
  DEFAULT_UNARY_TIMEOUT_MS,
  healthFromProbeError,
  type ServiceTarget,
  scrubSecrets,
  TrestleError,
  targetAddress,
} from "@trestle/core";
import {
  type CodeExecutionReply,
  type ResourceReply,
  ResourceReplySchema,
  type ToolInvokeReply,
  ToolInvokeReplySchema,
} from "@trestle/proto";
import {
  currentCallListeners,
  type McpCallListeners,
  type McpProgress,
  outsideCallContext,
} from "./call-listeners.js";
import { createConnectionPool } from "./connection-pool.js";
import { encodeResourceResult, encodeToolResult } from "./content-encoding.js";
import {
  type FailureSubject,
  failureSubject,
  isSessionGone,
  requestFailure,
  toolErrorResult,
} from "./mcp-failure.js";
import type { McpUpstream } from "./mcp-upstream.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS } from "./timeouts.js";
import { mcpToolArguments } from "./tool-request.js";
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
  /** Each logging message of an upstream served by a shared connection (see {@link McpCallListeners.onLog}). */
  onLog?: (event: McpUpstreamLogEvent) => void;
  /** Each stderr line of a stdio upstream. Without it, stderr is discarded (never inherited). */
  onStderr?: (event: McpUpstreamStderrEvent) => void;
  /** Each `list_changed` notification on a pooled connection. */
  onListChanged?: (event: McpListChangedEvent) => void;
}

const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
const DEFAULT_CLIENT_INFO: Implementation = { name: "trestle", version: "0.1.0" };

function unimplemented(method: string, contractMethod: string): TrestleError {
  return new TrestleError(
    `MCP servers have no counterpart of ${method} (${contractMethod}), so a forwarded MCP server cannot serve it`,
    Code.Unimplemented,
  );
}

/**
 * A logging message with the upstream's argument, environment and header values scrubbed from its data: a
 * server may log its own command line.
 */
function scrubLogMessage(message: McpLogMessage, subject: FailureSubject): McpLogMessage {
  if (subject.secrets.length === 0) return message;
  const text = JSON.stringify(message.data);
  if (text === undefined) return message;
  const scrubbed = scrubSecrets(text, subject.secrets);
  if (scrubbed === text) return message;
  try {
    return { ...message, data: JSON.parse(scrubbed) };
  } catch {
    return { ...message, data: scrubbed };
  }
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // A listener that throws must not fail the call.
  }
}

/**
 * Creates a {@link BridgeTransport} that fronts existing MCP servers, reached over stdio (spawned) or Streamable
 * HTTP, with the MCP SDK client.
 *
 * - `invokeTool` → `tools/call`: the tool is named by the request's `uri` (`mcp://<forward>/tools/<name>`, see
 *   {@link mcpToolUri}); the arguments are the request's `body` parsed as a JSON object (see
 *   {@link buildMcpToolRequest}), else its `arguments` map. Text blocks come back as plain `content` strings,
 *   every other block (and `structuredContent`) as marked JSON (see {@link decodeToolReply}).
 * - `acquireResource` → `resources/read` of `location`: text as plain strings, blobs as marked JSON (see
 *   {@link decodeResourceReply}).
 * - `probeHealth` → `ping`: healthy when answered; `down` when the server cannot be started or reached.
 * - `executeCode`, `provision` → `Unimplemented`: MCP has no counterpart.
 *
 * Failures, an `isError` tool result among them, reject with a `TrestleError` whose message is one sentence
 * that names the server by its program name or URL origin only; text from the server is scrubbed of the
 * upstream's argument, environment and header values. Cancelling `CallOptions.signal` sends
 * `notifications/cancelled` upstream. Progress reaches {@link withMcpCallListeners} listeners.
 *
 * Stdio upstreams in `pooled` mode keep one process per target and upstream, serving concurrent calls at
 * once, closed after `idleTimeoutMs` without calls and started again by the next call after it dies; `per-call`
 * mode spawns a process for each call. HTTP upstreams keep one session, initialised again (and the call sent
 * again, once) when the server no longer knows it. `release(target)` and `close()` end the processes, and any
 * process they started.
 *
 * @example
 * ```ts
 * const transport = createMcpTransport({ upstreamFor: (target) => forwards.get(target.serviceName)?.upstream });
 * const reply = await transport.invokeTool(
 *   buildMcpToolRequest({ forward: "everything", toolName: "get-sum", arguments: { a: 1, b: 2 } }),
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

  function hooksFor(target: ServiceTarget, subject: FailureSubject, pooled: boolean): ConnectionHooks {
    const hooks: ConnectionHooks = {};
    const { onLog, onStderr, onListChanged } = options;
    const listeners = pooled ? undefined : currentCallListeners();
    if (listeners?.onLog) {
      const onCallLog = listeners.onLog;
      hooks.onLog = (message) => onCallLog(scrubLogMessage(message, subject));
    } else if (onLog) {
      hooks.onLog = (message) =>
        onLog({ target, upstream: subject.label, message: scrubLogMessage(message, subject) });
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
      return outsideCallContext(() =>
        openUpstreamConnection(upstream, {
          subject,
          clientInfo,
          handshakeTimeoutMs: handshakeTimeoutFor(target),
          hooks: { ...hooksFor(target, subject, true), onClosed },
        }),
      );
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
    const onProgress = currentCallListeners()?.onProgress;
    const run = async (connection: UpstreamConnection): Promise<T> => {
      const requestOptions: RequestOptions = {
        signal: scope.signal,
        // The SDK's own timer only backs up the call's deadline, which fires first and names the method.
        timeout: Math.max(1, deadlineMs - (Date.now() - started)) + 1_000,
      };
      if (!onProgress) return request(connection, requestOptions, subject, {});
      const tracked = connection.trackProgress((progress) => {
        const out: McpProgress = { progress: progress.progress };
        if (progress.total !== undefined) out.total = progress.total;
        if (progress.message !== undefined) out.message = progress.message;
        safely(() => onProgress(out));
      });
      try {
        return await request(connection, requestOptions, subject, { progressToken: tracked.token });
      } finally {
        tracked.stop();
      }
    };
    try {
      if (upstream.kind === "stdio" && upstream.mode === "per-call") {
        return await perCallRequest(target, upstream, subject, scope.signal, run);
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
    run: (connection: UpstreamConnection) => Promise<T>,
  ): Promise<T> {
    const connection = await openUpstreamConnection(upstream, {
      subject,
      clientInfo,
      handshakeTimeoutMs: handshakeTimeoutFor(target),
      signal,
      hooks: hooksFor(target, subject, false),
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
    async invokeTool(request, target, callOptions): Promise<ToolInvokeReply> {
      // A malformed request fails before any server is started for it.
      const { toolName } = parseMcpToolUri(request.uri);
      const args = mcpToolArguments(request);
      return withUpstream(
        target,
        callOptions,
        "tools/call",
        async (connection, requestOptions, subject, meta) => {
          const params = { name: toolName, arguments: args };
          const result = await connection.client.callTool(
            meta.progressToken ? { ...params, _meta: { progressToken: meta.progressToken } } : params,
            undefined,
            requestOptions,
          );
          if (result.isError)
            throw toolErrorResult(toolName, result.content as { type: string; text?: unknown }[], subject);
          return create(ToolInvokeReplySchema, {
            content: encodeToolResult(result as Parameters<typeof encodeToolResult>[0]),
          });
        },
      );
    },
    acquireResource(request, target, callOptions): Promise<ResourceReply> {
      return withUpstream(target, callOptions, "resources/read", async (connection, requestOptions) => {
        const result = await connection.client.readResource({ uri: request.location }, requestOptions);
        return create(ResourceReplySchema, { content: encodeResourceResult(result, request.location) });
      });
    },
    executeCode(): AsyncIterable<CodeExecutionReply> {
      const error = unimplemented("executeCode", "CodeExecutor.ExecuteCode");
      return {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
      };
    },
    async provision() {
      throw unimplemented("provision", "Provisioner.Provision");
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
