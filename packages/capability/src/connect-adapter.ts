import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { CapabilityHandlers } from "@trestle/wanaku";
import type { CallSecretCheck } from "./call-secret.js";
import { capabilityRoutes, type InFlightCalls } from "./capability-routes.js";
import type { RequestListener } from "./lazy-request-listener.js";

/**
 * The connect-node request listener serving the five Wanaku v1 services over Connect, gRPC-Web and gRPC with the
 * JSON codec (and gRPC in protobuf, should a request reach it), over HTTP/1.1 and HTTP/2. The capability server
 * imports this module on the first request that needs it, so that a service only ever called over gRPC in
 * protobuf never loads connect-node.
 */
export function createConnectListener(
  handlers: CapabilityHandlers,
  inFlight: InFlightCalls,
  shutdownSignal: AbortSignal,
  secretCheck: CallSecretCheck | undefined,
  maxRequestBytes: number,
): RequestListener {
  return connectNodeAdapter({
    routes: capabilityRoutes(handlers, inFlight),
    shutdownSignal,
    readMaxBytes: maxRequestBytes,
    ...(secretCheck ? { interceptors: [secretCheck.connectInterceptor] } : {}),
  }) as RequestListener;
}
