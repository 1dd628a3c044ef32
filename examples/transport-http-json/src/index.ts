/**
 * A Trestle transport written for `docs/writing-a-transport.md`: `createHttpJsonTransport` is a
 * `BridgeTransport` speaking HTTP+JSON, and `createHttpJsonCapabilityServer` serves `ServiceHandlers` on the
 * other end of that wire. Both are small on purpose; the tests prove them with the transport test kit and route a
 * real MCP tool call to them through the router.
 *
 * @packageDocumentation
 */
export {
  createHttpJsonCapabilityServer,
  type HttpJsonCapabilityServer,
  type HttpJsonCapabilityServerOptions,
} from "./http-json-capability-server.js";
export { createHttpJsonTransport, type HttpJsonTransportOptions } from "./http-json-transport.js";
export {
  contractVersion,
  default,
  type HttpJsonPluginOptions,
  optionsSchema,
} from "./plugin.js";
export {
  CALL_PATHS,
  fromWireError,
  httpStatusFor,
  NDJSON,
  type ReplyLine,
  type RequestEnvelope,
  toWireError,
  type WireError,
} from "./wire.js";
