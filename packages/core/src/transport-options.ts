import type { ServiceTarget } from "./service-target.js";

/** Deadlines for the calls to one service; either may be left out to keep the transport's default. */
export interface ServiceTimeouts {
  /** Deadline of a unary call, in milliseconds. */
  unaryMs?: number;
  /** Deadline of a whole code execution stream, in milliseconds. */
  streamMs?: number;
}

/**
 * The deadline options of a transport to capability services, the same for every transport that takes them
 * (gRPC, Connect). A call's deadline is, first found: `CallOptions.timeoutMs`, the service's entry in
 * `timeouts`, the transport's `unaryTimeoutMs` / `streamTimeoutMs`, then `DEFAULT_UNARY_TIMEOUT_MS` /
 * `DEFAULT_STREAM_TIMEOUT_MS`.
 *
 * @example
 * ```ts
 * const options: TimeoutOptions = {
 *   unaryTimeoutMs: 5_000,
 *   timeouts: (target) => (target.serviceName === "slow" ? { unaryMs: 60_000 } : undefined),
 * };
 * ```
 */
export interface TimeoutOptions {
  /** Deadline of a unary call when neither the call nor `timeouts` sets one. Default 10 s. */
  unaryTimeoutMs?: number;
  /** Deadline of a code execution stream when neither the call nor `timeouts` sets one. Default 20 s. */
  streamTimeoutMs?: number;
  /** Deadlines per service, over the two above; a call's own `timeoutMs` wins over them. */
  timeouts?: (target: ServiceTarget) => ServiceTimeouts | undefined;
}

/**
 * TLS settings of a client that reaches a service, as PEM text or bytes. With none of `ca`, `cert`, `key` the
 * system's trusted roots verify the server; `cert` and `key` together turn on mutual TLS. Each transport adds
 * its own way to verify the server under another name than its host.
 */
export interface TlsOptions {
  /** Certificate(s) of the authority that signed the server's certificate, trusted instead of the system's. */
  ca?: string | Buffer;
  /** The client's certificate chain, for mutual TLS. */
  cert?: string | Buffer;
  /** The client's private key, for mutual TLS. */
  key?: string | Buffer;
}
