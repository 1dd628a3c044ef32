/** Per-call options that every {@link BridgeTransport} method accepts. */
export interface CallOptions {
  /** Cancels the call, including a running code execution stream. */
  signal?: AbortSignal;
  /** Deadline for the call, in milliseconds. Transports default to 10 s (unary) and 20 s (streaming). */
  timeoutMs?: number;
  /** The MCP request id; sent as `request_id` in the message and as `x-wanaku-request-id` metadata. */
  requestId?: string;
  /** Extra metadata sent with the call (e.g. `traceparent`). Keys are lower-cased on the wire. */
  metadata?: Record<string, string>;
}

/** Metadata key that carries the request id to a capability service. */
export const REQUEST_ID_METADATA_KEY = "x-wanaku-request-id";

/**
 * Metadata key (an HTTP header on Connect and gRPC-Web) that carries a capability service's call secret: the
 * shared secret a service built with `@trestle/capability` and a `callSecret` demands on every call.
 */
export const CAPABILITY_SECRET_METADATA_KEY = "x-trestle-capability-secret";

/** Default deadline of a unary call, as in Wanaku. */
export const DEFAULT_UNARY_TIMEOUT_MS = 10_000;

/** Default deadline of a code execution stream, as in Wanaku. */
export const DEFAULT_STREAM_TIMEOUT_MS = 20_000;
