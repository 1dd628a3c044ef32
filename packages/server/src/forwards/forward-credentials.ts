import { withCredentialHeaders } from "@trestle/core";
import type { ForwardUpstream, UpstreamAuth } from "@trestle/core/catalog";

/**
 * A forward's upstream as the router's own connections use it (the catalog watch, and the transports' connections):
 * a static `upstreamAuth` among its headers, sent with every request like them; no `upstreamAuth` otherwise, since
 * an exchanged token belongs to one caller's calls (see {@link perCallUpstreamAuth}). The upstream itself when it
 * has no `upstreamAuth`.
 */
export function connectionUpstream(upstream: ForwardUpstream): ForwardUpstream {
  if (upstream.kind === "stdio" || upstream.upstreamAuth === undefined) return upstream;
  const { upstreamAuth, ...rest } = upstream;
  if (!("static" in upstreamAuth)) return rest;
  const header = upstreamAuth.static.header ?? "authorization";
  return { ...rest, headers: withCredentialHeaders(rest.headers, { [header]: upstreamAuth.static.value }) };
}

/** The credential of a forward's upstream that goes with each caller's calls: its token exchange, if any. */
export function perCallUpstreamAuth(upstream: ForwardUpstream): UpstreamAuth | undefined {
  if (upstream.kind === "stdio" || upstream.upstreamAuth === undefined) return undefined;
  return "tokenExchange" in upstream.upstreamAuth ? upstream.upstreamAuth : undefined;
}
