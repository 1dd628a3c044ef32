import type * as grpc from "@grpc/grpc-js";
import type { ServiceTarget, TimeoutOptions, TlsOptions } from "@trestle/core";
import type { WanakuDialect } from "@trestle/wanaku";

/** The wire dialect a capability service speaks: Wanaku v1 (>= 0.1.0) or the seed-era legacy packages. */
export type GrpcDialect = WanakuDialect;

/**
 * TLS settings for the channel to a service: core's `TlsOptions` (`ca`, `cert`, `key`, PEM text or bytes; `cert`
 * and `key` together turn on mutual TLS, one without the other is refused) and the name to verify the server as.
 */
export interface GrpcTlsOptions extends TlsOptions {
  /** The name to verify the server's certificate against (and send as `:authority`) instead of the host. */
  serverNameOverride?: string;
}

/** HTTP/2 keepalive of each channel. */
export interface GrpcKeepaliveOptions {
  /** Interval between keepalive pings. Default 30 s. */
  timeMs?: number;
  /** How long to wait for a ping's answer before the connection counts as dead. Default 10 s. */
  timeoutMs?: number;
  /** Ping also while no call is running. Default false (many servers refuse idle pings). */
  permitWithoutCalls?: boolean;
}

/**
 * Options for {@link createGrpcTransport}. Every field has a default. The deadlines (`unaryTimeoutMs`,
 * `streamTimeoutMs`, per-service `timeouts`) are core's `TimeoutOptions`, as the Connect transport takes them.
 */
export interface GrpcTransportOptions extends TimeoutOptions {
  /** A channel with no call for this long is closed (its connection too). Default 5 min. */
  idleTimeoutMs?: number;
  /** HTTP/2 keepalive. */
  keepalive?: GrpcKeepaliveOptions;
  /** Largest reply accepted, in bytes. Default 16 MiB. */
  maxReceiveMessageBytes?: number;
  /** Largest request sent, in bytes. Default: no limit. */
  maxSendMessageBytes?: number;
  /** TLS for every target. Default: plaintext. */
  tls?: GrpcTlsOptions;
  /**
   * TLS for one target, over `tls`: settings, `false` for plaintext, or `undefined` to use `tls`.
   * Called for every call: return the same object for the same target so that it keeps its channel cheaply.
   */
  tlsFor?: (target: ServiceTarget) => GrpcTlsOptions | false | undefined;
  /**
   * The dialect of one target; `undefined` keeps `target.dialect`, and a target that names none speaks
   * `"v1"`.
   */
  dialectFor?: (target: ServiceTarget) => GrpcDialect | undefined;
  /**
   * More grpc-js channel options, applied last (e.g. `"grpc.max_reconnect_backoff_ms"`, default here 10 s so
   * a restarted service is reached again soon).
   */
  channelOptions?: grpc.ChannelOptions;
  /**
   * The gRPC client. `"http2"` (the default): a lean client on `node:http2`, one connection per address for
   * the unary calls and the code execution streams, that frames the messages and reads the status from the
   * trailers itself (measured 30–40 % less client CPU per unary call than grpc-js). `"grpc-js"`: grpc-js, with
   * its reconnect backoff, keepalive pings and every `channelOptions` (which apply to grpc-js only); grpc-js is
   * loaded with the first call on this client, never for the default one.
   */
  client?: "http2" | "grpc-js";
}

/** Default idle time after which a channel is closed. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;

/** Default largest reply accepted. */
export const DEFAULT_MAX_RECEIVE_MESSAGE_BYTES = 16 * 1024 * 1024;
