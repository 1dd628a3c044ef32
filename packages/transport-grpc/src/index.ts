/**
 * The gRPC transport of Trestle: a `BridgeTransport` that reaches Wanaku capability services in the v1 or the
 * legacy dialect, with pooled channels, deadlines, cancellation, metadata, status mapping and TLS; over a lean
 * `node:http2` client by default, or over @grpc/grpc-js (loaded only for that client).
 *
 * @packageDocumentation
 */
export type { ServiceTimeouts } from "@trestle/core";
export { createGrpcTransport, createGrpcWanakuTransport } from "./grpc-transport.js";
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
  type GrpcDialect,
  type GrpcKeepaliveOptions,
  type GrpcTlsOptions,
  type GrpcTransportOptions,
} from "./grpc-transport-options.js";
