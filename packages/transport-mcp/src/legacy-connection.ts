/**
 * A connection to a legacy upstream: the `initialize` handshake on the SDK v1 client, over stdio or Streamable
 * HTTP, with its session, notifications and server-to-client requests.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  type ClientCapabilities,
  EmptyResultSchema,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Code, type InputRequest, type InputResponse, type JsonObject, TrestleError } from "@trestle/core";
import { createSessionFetch, type SessionFetch } from "./http-fetch.js";
import { relayInputRequests } from "./input-relay.js";
import { handshakeFailure } from "./mcp-failure.js";
import type { McpUpstream } from "./mcp-upstream.js";
import { descendantPids, isProcessAlive, killAll } from "./process-tree.js";
import type { OpenConnectionOptions, UpstreamConnection } from "./upstream-connection.js";
import { correlatingFetch, ownSignalFetch, parseUrl } from "./upstream-http.js";
import { logMessageOf, progressRouter, safely } from "./upstream-listeners.js";
import { type PidTrackingStdioTransport, stdioTransport } from "./upstream-stdio.js";

/** How long a DELETE of an HTTP session may take at close before the connection is dropped anyway. */
const TERMINATE_SESSION_BOUND_MS = 1_000;

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

/** A legacy session: the `initialize` handshake on the SDK v1 client, over stdio or Streamable HTTP. */
export async function openLegacy(
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
  /** The session's own HTTP client (HTTP only): ended with the session. */
  let sessionFetch: SessionFetch | undefined;
  if (upstream.kind === "stdio") {
    stdio = running ?? stdioTransport(options.launch(upstream), subject, hooks);
  } else {
    const url = parseUrl(upstream, subject);
    sessionFetch = createSessionFetch(url, ownSignalFetch());
    http = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { ...(upstream.headers ?? {}) } },
      fetch: interactive ? correlatingFetch(origins, sessionFetch.fetch) : sessionFetch.fetch,
    });
  }

  async function forceEnd(): Promise<void> {
    const pid = stdio?.spawnedPid;
    if (pid !== undefined) {
      killAll([...descendantPids(pid), pid]);
      await Promise.race([ended, new Promise((r) => setTimeout(r, 2_000).unref())]);
    }
    await client.close().catch(() => undefined);
    sessionFetch?.destroy();
  }

  try {
    await client.connect((stdio ?? http) as StdioClientTransport | StreamableHTTPClientTransport, {
      timeout: remainingMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    await forceEnd();
    if (options.signal?.aborted) throw TrestleError.from(options.signal.reason, Code.Canceled);
    throw handshakeFailure(error, subject, options.handshakeTimeoutMs, stdio?.stderrTail);
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
          sessionFetch?.destroy();
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
