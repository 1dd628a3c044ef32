import type { CallOptions } from "@trestle/core";

/**
 * The W3C trace context of a call as the A2A client's per-request headers (`serviceParameters`: HTTP headers, or
 * gRPC metadata on the gRPC binding): `traceparent` and `tracestate` from the call's metadata, nothing else.
 */
export function traceHeaders(options: CallOptions | undefined): Record<string, string> | undefined {
  const traceparent = options?.metadata?.traceparent;
  if (!traceparent) return undefined;
  const tracestate = options?.metadata?.tracestate;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
