/**
 * The Connect transport of Trestle: a `BridgeTransport` that reaches capability services over the Connect
 * protocol (binary or JSON) or gRPC-Web, on HTTP/2 or HTTP/1.1, with @connectrpc/connect-node.
 *
 * @packageDocumentation
 */
export type { ServiceTimeouts } from "@trestle/core";
export {
  type ConnectTransportOptions,
  createConnectTransport,
  createConnectWanakuTransport,
} from "./connect-transport.js";
export type { ConnectTlsOptions } from "./target-connection.js";
