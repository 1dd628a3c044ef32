/** Metadata key that carries the caller's request id to a Wanaku capability service (`CallOptions.requestId`). */
export const REQUEST_ID_METADATA_KEY = "x-wanaku-request-id";

/**
 * Metadata key (an HTTP header on Connect and gRPC-Web) that carries a capability service's call secret: the
 * shared secret a service built with `@trestle/capability` and a `callSecret` demands on every call.
 */
export const CAPABILITY_SECRET_METADATA_KEY = "x-trestle-capability-secret";
