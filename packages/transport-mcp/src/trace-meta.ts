import type { CallOptions, JsonObject } from "@trestle/core";

/**
 * The W3C trace context of a call for an MCP upstream, as `params._meta` carries it (MCP 2026-07-28 reserves
 * `traceparent` and `tracestate` there; older servers ignore unknown `_meta` keys): `{ _meta: { traceparent,
 * tracestate } }` from the call's metadata, or nothing when it has no `traceparent`. No other metadata goes there.
 */
export function traceMeta(options: CallOptions | undefined): { _meta?: JsonObject } {
  const traceparent = options?.metadata?.traceparent;
  if (!traceparent) return {};
  const tracestate = options?.metadata?.tracestate;
  return { _meta: tracestate ? { traceparent, tracestate } : { traceparent } };
}
