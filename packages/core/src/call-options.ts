export type { CallOptions } from "./call.js";

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
