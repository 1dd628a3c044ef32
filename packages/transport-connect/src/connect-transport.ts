import {
  type BridgeTransport,
  type CallOptions,
  Code,
  cancellationOf,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_UNARY_TIMEOUT_MS,
  healthFromProbeError,
  type ServiceTarget,
  type TimeoutOptions,
  TrestleError,
  targetAddress,
} from "@trestle/core";
import type { CodeExecutionReply } from "@trestle/proto";
import {
  buildProvisionRequest,
  fromWanakuTransport,
  healthFromRuntimeStatus,
  provisioningReferenceFromReply,
  type WanakuTransport,
} from "@trestle/wanaku";
import { trestleErrorFrom } from "./error-mapping.js";
import { requestHeadersFor } from "./request-headers.js";
import {
  type ConnectTlsOptions,
  openTargetConnection,
  type TargetCallOptions,
  type TargetConnection,
} from "./target-connection.js";

/**
 * Options for {@link createConnectTransport}. Every field is optional. The deadlines (`unaryTimeoutMs`, default
 * 10,000 ms, and `streamTimeoutMs`, default 20,000 ms, as in Wanaku; per-service `timeouts`, over them; a call's
 * own `timeoutMs` wins over all) are core's `TimeoutOptions`, as the gRPC transport takes them.
 */
export interface ConnectTransportOptions extends TimeoutOptions {
  /** Wire protocol: `"connect"` (default) or `"grpc-web"`. */
  protocol?: "connect" | "grpc-web";
  /** HTTP version: `"2"` (default; every call multiplexed on one connection per target) or `"1.1"`. */
  httpVersion?: "1.1" | "2";
  /** Protobuf binary (default, `true`) or JSON (`false`) messages. */
  useBinaryFormat?: boolean;
  /**
   * Reach services over TLS: one setting for every target, or a function choosing per target (`undefined` for
   * cleartext).
   */
  tls?: ConnectTlsOptions | ((target: ServiceTarget) => ConnectTlsOptions | undefined);
  /** Close an HTTP/2 connection after this long without calls (it reopens on the next call). Default 15 min. */
  idleConnectionTimeoutMs?: number;
}

/**
 * Creates a {@link BridgeTransport} that reaches Wanaku capability services (such as those built with
 * `@trestle/capability`) over the Connect protocol or gRPC-Web: the neutral calls are mapped to the
 * contract's messages by `@trestle/wanaku` and sent as {@link createConnectWanakuTransport} sends them.
 *
 * @example
 * ```ts
 * const transport = createConnectTransport({ httpVersion: "1.1", useBinaryFormat: false });
 * const result = await transport.callTool({ tool, arguments: { city: "Oslo" } }, target, { requestId: "42" });
 * ```
 */
export function createConnectTransport(options: ConnectTransportOptions = {}): BridgeTransport {
  return fromWanakuTransport(createConnectWanakuTransport(options));
}

/**
 * Creates a {@link WanakuTransport} that sends Wanaku's messages as they are over the Connect protocol (binary
 * or JSON) or gRPC-Web, over HTTP/2 or HTTP/1.1: for tests of a service's raw wire, and under
 * {@link createConnectTransport}.
 *
 * One connection (HTTP/2) or keep-alive pool (HTTP/1.1) per target address is kept and reused by every call;
 * `release(target)` and `close()` let it go. Deadlines default to 10 s (unary) and 20 s (streams), per service
 * through `timeouts` and per call through `CallOptions.timeoutMs`. Failures reject with a `TrestleError` whose code
 * is the service's status (contract §3); an unreachable service is `Unavailable`.
 *
 * @example
 * ```ts
 * const transport = createConnectTransport({ httpVersion: "1.1", useBinaryFormat: false });
 * const reply = await transport.invokeTool(request, target, { requestId: "42", timeoutMs: 5_000 });
 * ```
 */
export function createConnectWanakuTransport(options: ConnectTransportOptions = {}): WanakuTransport {
  const connections = new Map<string, TargetConnection>();
  let closed = false;

  function tlsFor(target: ServiceTarget): ConnectTlsOptions | undefined {
    return typeof options.tls === "function" ? options.tls(target) : options.tls;
  }

  function connectionFor(target: ServiceTarget): TargetConnection {
    if (closed) throw new TrestleError("The Connect transport is closed", Code.Unavailable);
    const tls = tlsFor(target);
    const key = `${tls ? "https" : "http"}://${targetAddress(target)}`;
    let connection = connections.get(key);
    if (!connection) {
      connection = openTargetConnection(target, {
        protocol: options.protocol ?? "connect",
        httpVersion: options.httpVersion ?? "2",
        useBinaryFormat: options.useBinaryFormat ?? true,
        tls,
        idleConnectionTimeoutMs: options.idleConnectionTimeoutMs,
      });
      connections.set(key, connection);
    }
    return connection;
  }

  function timeoutFor(
    target: ServiceTarget,
    options_: CallOptions | undefined,
    kind: "unary" | "stream",
  ): number {
    if (options_?.timeoutMs !== undefined) return options_.timeoutMs;
    const perService = options.timeouts?.(target);
    return kind === "unary"
      ? (perService?.unaryMs ?? options.unaryTimeoutMs ?? DEFAULT_UNARY_TIMEOUT_MS)
      : (perService?.streamMs ?? options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS);
  }

  async function unary<T>(
    target: ServiceTarget,
    options_: CallOptions | undefined,
    call: (connection: TargetConnection, connectOptions: TargetCallOptions) => Promise<T>,
  ): Promise<T> {
    // Read through core's Cancellation: no AbortSignal is made for a call unless a connect-es client needs one.
    const cancellation = cancellationOf(options_);
    try {
      return await call(connectionFor(target), {
        timeoutMs: timeoutFor(target, options_, "unary"),
        headers: requestHeadersFor(options_?.metadata, options_?.requestId),
        cancellation,
      });
    } catch (error) {
      throw trestleErrorFrom(error, cancellation);
    }
  }

  async function* executeCode(
    request: Parameters<WanakuTransport["executeCode"]>[0],
    target: ServiceTarget,
    options_: CallOptions | undefined,
  ): AsyncGenerator<CodeExecutionReply> {
    // Cancels the HTTP stream when the consumer stops early, so the engine stops too.
    const stop = new AbortController();
    const callerSignal = options_?.signal;
    const signal = callerSignal ? AbortSignal.any([stop.signal, callerSignal]) : stop.signal;
    try {
      const connection = connectionFor(target);
      const stream = connection.codeExecutor.executeCode(request, {
        timeoutMs: timeoutFor(target, options_, "stream"),
        headers: requestHeadersFor(options_?.metadata, options_?.requestId),
        signal,
      });
      for await (const reply of stream) yield reply;
    } catch (error) {
      throw trestleErrorFrom(error, callerSignal);
    } finally {
      stop.abort();
    }
  }

  return {
    // The leg each call reports: the protocol the messages travel over.
    protocol: options.protocol ?? "connect",
    provision(name, configData, secretsData, target, callOpts) {
      return unary(target, callOpts, async (connection, connectOptions) =>
        provisioningReferenceFromReply(
          await connection.provisioner.provision(
            buildProvisionRequest({ name, configurationData: configData, secretsData }),
            connectOptions,
          ),
        ),
      );
    },
    invokeTool(request, target, callOpts) {
      return unary(target, callOpts, (connection, connectOptions) =>
        connection.toolInvoker.invokeTool(request, connectOptions),
      );
    },
    acquireResource(request, target, callOpts) {
      return unary(target, callOpts, (connection, connectOptions) =>
        connection.resourceAcquirer.resourceAcquire(request, connectOptions),
      );
    },
    executeCode(request, target, callOpts) {
      return executeCode(request, target, callOpts);
    },
    async probeHealth(target, callOpts) {
      try {
        const reply = await unary(target, callOpts, (connection, connectOptions) =>
          connection.healthProbe.getStatus({ id: target.id }, connectOptions),
        );
        return healthFromRuntimeStatus(reply.status);
      } catch (error) {
        return healthFromProbeError(error);
      }
    },
    release(target) {
      for (const scheme of ["http", "https"]) {
        const key = `${scheme}://${targetAddress(target)}`;
        connections.get(key)?.close();
        connections.delete(key);
      }
    },
    async close() {
      closed = true;
      for (const connection of connections.values()) connection.close();
      connections.clear();
    },
  };
}
