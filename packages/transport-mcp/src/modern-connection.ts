/**
 * A connection to a 2026-07-28 (modern) upstream: probed with `server/discover`, stateless, every request on its
 * own.
 */
import { DiscoverResultSchema } from "@modelcontextprotocol/core";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type Implementation,
  McpError,
  type Progress,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { Code, type JsonObject, TrestleError } from "@trestle/core";
import { handshakeFailure } from "./mcp-failure.js";
import { mcpParamHeaders } from "./mcp-param-headers.js";
import type { McpUpstream } from "./mcp-upstream.js";
import {
  createHttpModernChannel,
  createStdioModernChannel,
  type ModernChannel,
  type ModernNotification,
} from "./modern-channel.js";
import {
  MODERN_ERROR_CODES,
  MODERN_PROTOCOL_VERSION,
  modernMeta,
  SERVER_INFO_META_KEY,
} from "./modern-era.js";

import type {
  DiscoveredServer,
  McpListKind,
  OpenConnectionOptions,
  UpstreamConnection,
} from "./upstream-connection.js";
import { parseUrl } from "./upstream-http.js";
import { logMessageOf, progressRouter, safely } from "./upstream-listeners.js";
import { endProcess, type PidTrackingStdioTransport, stdioTransport } from "./upstream-stdio.js";

/**
 * How long a stdio server may stay silent on `server/discover` before it is taken for a legacy server (the spec
 * allows a legacy server not to answer an unknown request before `initialize`).
 */
const STDIO_PROBE_TIMEOUT_MS = 10_000;

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
export async function openModern(
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
      throw handshakeFailure(error, subject, options.handshakeTimeoutMs, stdio?.stderrTail);
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
          `The MCP server ${subject.label} did not complete the MCP handshake within ${options.handshakeTimeoutMs} ms (startTimeoutMs on a first start, handshakeTimeoutMs after it: raise it for a server that starts slowly)`,
          Code.Unavailable,
        );
      }
      if (error instanceof McpError && MODERN_ERROR_CODES.has(error.code)) {
        throw new TrestleError(
          `The MCP server ${subject.label} speaks no MCP revision this router speaks (it answered error ${error.code})`,
          Code.Unavailable,
        );
      }
      throw handshakeFailure(error, subject, options.handshakeTimeoutMs, stdio?.stderrTail);
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
