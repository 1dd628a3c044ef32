import type {
  CallToolResult,
  ClientCapabilities,
  Implementation,
  Progress as McpProgress,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type CodeOutput,
  createCallScope,
  DEFAULT_UNARY_TIMEOUT_MS,
  healthFromProbeError,
  type PromptResult,
  type ResourceResult,
  type ServiceTarget,
  type ToolResult,
  type TranslationLeg,
  TrestleError,
  targetAddress,
  translationRecorderKey,
  upstreamCredentialKey,
} from "@trestle/core";
import { createConnectionPool } from "./connection-pool.js";
import { type FailureSubject, failureSubject, isSessionGone, requestFailure } from "./mcp-failure.js";
import { type McpUpstream, upstreamKeyCache, withCallCredential } from "./mcp-upstream.js";
import { ALL_INPUT_CAPABILITIES, inputRequiredOf } from "./modern-era.js";
import { createSpawnLimit, type PerCallLimit } from "./spawn-limit.js";
import { createStdioSandbox, type StdioSandbox } from "./stdio-sandbox.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS } from "./timeouts.js";
import { parseMcpToolUri } from "./tool-uri.js";
import { traceMeta } from "./trace-meta.js";
import {
  type ConnectionHooks,
  type EraVerdict,
  type McpListKind,
  type McpLogMessage,
  type OpenConnectionOptions,
  openUpstreamConnection,
  type UpstreamConnection,
  type UpstreamRequestOptions,
} from "./upstream-connection.js";
import { answersFor, isEraRefused, logMessage, toolResult, withMeta } from "./upstream-results.js";

/** The leg of a tool call, before the upstream's revision is known. */
const TOOLS_CALL_LEG: TranslationLeg = Object.freeze({ protocol: "mcp", method: "tools/call" });

/** How many upstream revisions' legs a transport keeps. */
const MAX_KEPT_LEGS = 16;

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
  /** Each `list_changed` notification on a pooled connection (legacy sessions; a modern upstream sends none unasked). */
  onListChanged?: (event: McpListChangedEvent) => void;
  /**
   * What a call tells a 2026-07-28 upstream its client can answer (`_meta`
   * `io.modelcontextprotocol/clientCapabilities`): the upstream asks, with `input_required`, only for what is
   * declared. Return `undefined` for the default: every kind of input (elicitation, sampling, roots) when the
   * call has `onInputRequest`, none otherwise. The router's front supplies its client's capabilities here
   * (from the call's context values). Legacy sessions fix their capabilities at `initialize` instead.
   */
  clientCapabilities?: (callOptions: CallOptions | undefined) => ClientCapabilities | undefined;
  /**
   * The sandbox stdio servers start in, each under its target's service name (see {@link createStdioSandbox}; an
   * upstream's `sandbox: false` opts out). Default: one of this transport's own, with temporary homes removed at
   * `close()`.
   */
  sandbox?: StdioSandbox;
  /** Per-call processes one target may run at once, and calls that may wait for one (`mode: "per-call"`). */
  perCallLimit?: PerCallLimit;
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

/**
 * Creates a {@link BridgeTransport} that fronts existing MCP servers, reached over stdio (spawned) or Streamable
 * HTTP, in the era each speaks: the first connection probes with `server/discover`; an upstream that speaks MCP
 * 2026-07-28 is called statelessly (one POST per call over HTTP, `_meta` on every request), any other gets the
 * legacy `initialize` handshake on the SDK v1 client. The verdict is kept per upstream. Calls map to MCP one to
 * one, nothing encoded on the way:
 *
 * - `callTool` → `tools/call` of the tool the call's `tool.uri` names (`mcp://<forward>/tools/<name>`, see
 *   {@link mcpToolUri}), with the call's JSON `arguments` as they are (and, to a 2026-07-28 HTTP upstream, the
 *   arguments `tool.inputSchema` marks with `x-mcp-header` as `Mcp-Param-*` headers); the result's content
 *   blocks (text, image, audio, embedded resource, resource link), `structuredContent`, `_meta` (less the
 *   upstream's `serverInfo`) and `isError` come back as they are. A 2026-07-28 `input_required` answer resolves
 *   as `inputRequired` (requests under the upstream's keys, its `requestState` verbatim as `state`, `content`
 *   empty); `call.input` is sent as `inputResponses` and `requestState`.
 * - `readResource` → `resources/read` of the call's `uri`: the contents (text or blob, each with its own URI and
 *   MIME type) and `_meta` as they are.
 * - `getPrompt` → `prompts/get` of the prompt's name on the upstream (the directory's
 *   `upstreamPromptName`, else the prompt's own name); `inputRequired` and `input` as for tools.
 * - `probeHealth` → `ping` (2026-07-28: `server/discover`): healthy when answered; `down` when the server cannot
 *   be started or reached.
 * - `executeCode`, `provision` → `Unimplemented`, naming the method: MCP has no counterpart.
 *
 * Per call: `CallOptions.onProgress` gets the upstream's progress (a `progressToken` is sent only then);
 * `onLog` gets the call's own log messages from a 2026-07-28 upstream (it asks for them with a log level), and
 * the logging messages of a legacy `per-call` process; `onInputRequest` answers a legacy upstream's
 * `elicitation/create`, `sampling/createMessage` and `roots/list` made during the call (the call then uses a
 * connection that declared those capabilities; on a shared HTTP session a request is tied to its call by the
 * stream it arrives on, on a shared stdio pipe only when the call is the one such call in flight), and decides
 * the default `clientCapabilities` a 2026-07-28 upstream is told. Cancelling `signal` sends
 * `notifications/cancelled` upstream (2026-07-28 over HTTP: closes the call's stream).
 *
 * Failures reject with a `TrestleError` whose message is one sentence that names the server by its program
 * name or URL origin only; text from the server is scrubbed of the upstream's argument, environment and header
 * values.
 *
 * Stdio upstreams in `pooled` mode keep one process per target and upstream (two when calls that can answer
 * input requests meet a legacy upstream), serving concurrent calls at once, closed after `idleTimeoutMs` without
 * calls and started again by the next call after it dies; `per-call` mode spawns a process for each call. Legacy
 * HTTP upstreams keep one session, initialised again (and the call sent again, once) when the server no longer
 * knows it; 2026-07-28 HTTP upstreams keep nothing but idle TCP connections. A call with a credential (core's
 * `upstreamCredentialKey`) has HTTP connections that only calls with it share. `release` and `close` end processes.
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
  const sandbox = options.sandbox ?? createStdioSandbox();
  const spawnLimit = createSpawnLimit(options.perCallLimit);
  /** Per-call connections in use, so that close() and release() can end them too. */
  const perCall = new Set<{ targetId: string; connection: UpstreamConnection }>();
  const teardowns = new Set<Promise<void>>();
  let closed = false;
  /** The `tools/call` leg of each revision an upstream spoke, frozen and shared: a history keeps a report per call. */
  const toolLegs = new Map<string, TranslationLeg>();

  /** The leg a tool call spoke to an upstream of `version` (unknown until connected: none). */
  function toolLeg(version: string | undefined): TranslationLeg {
    if (version === undefined) return TOOLS_CALL_LEG;
    let leg = toolLegs.get(version);
    if (!leg) {
      leg = Object.freeze({ protocol: "mcp", version, method: "tools/call" });
      // An upstream names its revision: a handful at most, but one that names a new one on every answer gets no room.
      if (toolLegs.size < MAX_KEPT_LEGS) toolLegs.set(version, leg);
    }
    return leg;
  }

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

  /** Each upstream's era, as the last connection to it found (so that the next one need not probe). */
  const verdicts = new Map<string, EraVerdict>();
  const upstreamKey = upstreamKeyCache();
  /** The failure subject of each upstream called without a credential of its own, asked for on every call. */
  const subjects = new WeakMap<McpUpstream, FailureSubject>();

  function subjectOf(upstream: McpUpstream, credential: Readonly<Record<string, string>> | undefined) {
    if (credential !== undefined) return failureSubject(withCallCredential(upstream, credential));
    let subject = subjects.get(upstream);
    if (subject === undefined) {
      subject = failureSubject(upstream);
      subjects.set(upstream, subject);
    }
    return subject;
  }

  function connectionOptions(
    upstream: McpUpstream,
    subject: FailureSubject,
    target: ServiceTarget,
    interactive: boolean,
  ): Pick<
    OpenConnectionOptions,
    "subject" | "clientInfo" | "handshakeTimeoutMs" | "interactive" | "prior" | "onVerdict" | "launch"
  > {
    const key = upstreamKey(upstream);
    const prior = verdicts.get(key);
    return {
      subject,
      clientInfo,
      handshakeTimeoutMs: handshakeTimeoutFor(target),
      interactive,
      ...(prior ? { prior } : {}),
      onVerdict: (verdict) => verdicts.set(key, verdict),
      launch: (stdio) => sandbox.launch(stdio, target.serviceName),
    };
  }

  const pool = createConnectionPool({
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    open(target, upstream, lane, onClosed, credential) {
      const connected = withCallCredential(upstream, credential);
      const subject = failureSubject(connected);
      return openUpstreamConnection(connected, {
        ...connectionOptions(upstream, subject, target, lane === "interactive"),
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

  /** What a call tells a modern upstream its client can answer. */
  function capabilitiesFor(callOptions: CallOptions | undefined): ClientCapabilities {
    const declared = options.clientCapabilities?.(callOptions);
    if (declared) return declared;
    return callOptions?.onInputRequest ? ALL_INPUT_CAPABILITIES : {};
  }

  /**
   * Runs `request` on a connection to the target's upstream, within the call's deadline and signal, and turns
   * every failure into one sentence. An HTTP upstream that forgot its session gets a new one, and the request
   * is sent again once (the server did not process it: it did not know the session); so does a modern HTTP
   * upstream that no longer takes modern requests (it is probed again).
   */
  async function withUpstream<T>(
    target: ServiceTarget,
    callOptions: CallOptions | undefined,
    method: string,
    request: (
      connection: UpstreamConnection,
      requestOptions: UpstreamRequestOptions,
      subject: FailureSubject,
    ) => Promise<T>,
  ): Promise<T> {
    const upstream = resolveUpstream(target);
    // The router's credential for this call's caller (an exchanged token): HTTP connections of its own.
    const credential =
      upstream.kind === "http" ? callOptions?.contextValues?.get(upstreamCredentialKey) : undefined;
    const subject = subjectOf(upstream, credential);
    const deadlineMs = deadlineFor(target, callOptions);
    const scope = createCallScope(callOptions?.signal, deadlineMs);
    const started = Date.now();
    const onProgress = callOptions?.onProgress;
    const onCallLog = callOptions?.onLog;
    const onInputRequest = callOptions?.onInputRequest;
    const requestOptions = (): UpstreamRequestOptions => ({
      signal: scope.signal,
      // The SDK's own timer only backs up the call's deadline, which fires first and names the method.
      timeout: Math.max(1, deadlineMs - (Date.now() - started)) + 1_000,
      clientCapabilities: capabilitiesFor(callOptions),
      ...(onProgress
        ? {
            onProgress: (progress: McpProgress) =>
              safely(() =>
                onProgress({
                  progress: progress.progress,
                  ...(progress.total !== undefined ? { total: progress.total } : {}),
                  ...(progress.message !== undefined ? { message: progress.message } : {}),
                }),
              ),
          }
        : {}),
      ...(onCallLog
        ? { onLog: (message: McpLogMessage) => safely(() => onCallLog(logMessage(message))) }
        : {}),
      ...(onInputRequest ? { onInputRequest } : {}),
    });
    const key = upstreamKey(upstream);
    try {
      if (upstream.kind === "stdio" && upstream.mode === "per-call") {
        return await perCallRequest(target, upstream, subject, scope.signal, callOptions, (connection) =>
          request(connection, requestOptions(), subject),
        );
      }
      // Only a legacy session fixes its capabilities at the start: a modern upstream learns them per request.
      const lane = onInputRequest && verdicts.get(key)?.era !== "modern" ? "interactive" : "plain";
      for (let attempt = 0; ; attempt++) {
        const lease = await pool.acquire(target, upstream, scope.signal, lane, credential);
        try {
          return await request(lease.connection, requestOptions(), subject);
        } catch (error) {
          if (upstream.kind === "http" && attempt === 0 && !scope.signal.aborted) {
            if (lease.connection.era === "legacy" && isSessionGone(error)) {
              lease.discard();
              continue;
            }
            if (lease.connection.era === "modern" && isEraRefused(error)) {
              verdicts.delete(key);
              lease.discard();
              continue;
            }
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
    // A slot per process, held until the process has exited: calls beyond the limit wait, bounded, or fail.
    const release = await spawnLimit.acquire(target.id, subject.label, signal);
    let connection: UpstreamConnection;
    try {
      connection = await openUpstreamConnection(upstream, {
        ...connectionOptions(upstream, subject, target, callOptions?.onInputRequest !== undefined),
        signal,
        hooks: hooksFor(target, subject, callOptions, false),
      });
    } catch (error) {
      release();
      throw error;
    }
    const entry = { targetId: target.id, connection };
    perCall.add(entry);
    try {
      if (closed) throw new TrestleError("The MCP transport is closed", Code.Unavailable);
      return await run(connection);
    } finally {
      perCall.delete(entry);
      // The reply does not wait for the process to exit; close() does.
      const teardown = connection.close().finally(release);
      teardowns.add(teardown);
      void teardown.finally(() => teardowns.delete(teardown));
    }
  }

  return {
    async callTool(call, target, callOptions): Promise<ToolResult> {
      const recorder = callOptions?.contextValues?.get(translationRecorderKey);
      recorder?.backend(TOOLS_CALL_LEG);
      // A malformed reference fails before any server is started for it.
      const { toolName } = parseMcpToolUri(call.tool.uri);
      return withUpstream(target, callOptions, "tools/call", async (connection, requestOptions, subject) => {
        // The revision the upstream speaks is known once connected: the leg names it.
        recorder?.backend(toolLeg(connection.protocolVersion));
        const params = {
          name: toolName,
          arguments: call.arguments,
          ...answersFor(connection, call.input, subject),
          ...traceMeta(callOptions),
        };
        const result = await connection.request(
          "tools/call",
          params,
          call.tool.inputSchema ? { ...requestOptions, inputSchema: call.tool.inputSchema } : requestOptions,
        );
        const inputRequired = inputRequiredOf(result, subject);
        if (inputRequired) return withMeta<ToolResult>({ content: [], inputRequired }, result);
        return toolResult(result as CallToolResult, subject);
      });
    },
    readResource(read, target, callOptions): Promise<ResourceResult> {
      return withUpstream(
        target,
        callOptions,
        "resources/read",
        async (connection, requestOptions, subject) => {
          const result = await connection.request(
            "resources/read",
            { uri: read.uri, ...traceMeta(callOptions) },
            requestOptions,
          );
          if (result.resultType === "input_required") {
            throw new TrestleError(
              `The MCP server ${subject.label} asked for input to read a resource, which the router cannot pass on`,
              Code.Unimplemented,
            );
          }
          return withMeta<ResourceResult>(
            { contents: (result.contents ?? []) as ResourceResult["contents"] },
            result,
          );
        },
      );
    },
    getPrompt(get, target, callOptions): Promise<PromptResult> {
      const name = directory?.upstreamPromptName?.(target, get.prompt.name) ?? get.prompt.name;
      return withUpstream(target, callOptions, "prompts/get", async (connection, requestOptions, subject) => {
        const params = {
          name,
          arguments: get.arguments,
          ...answersFor(connection, get.input, subject),
          ...traceMeta(callOptions),
        };
        const result = await connection.request("prompts/get", params, requestOptions);
        const inputRequired = inputRequiredOf(result, subject);
        if (inputRequired) return withMeta<PromptResult>({ messages: [], inputRequired }, result);
        const out: PromptResult = {
          messages: (result.messages ?? []) as unknown as PromptResult["messages"],
        };
        if (typeof result.description === "string") out.description = result.description;
        return withMeta(out, result);
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
          connection.request("ping", {}, requestOptions),
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
      if (!options.sandbox) sandbox.dispose();
    },
  };
}
