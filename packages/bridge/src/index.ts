/**
 * Trestle's bridge layer: turns catalog entries and MCP arguments into capability requests, chooses the
 * service, records redacted tool-call events, and turns replies and failures into MCP-shaped results. It
 * reaches capability services only through `@trestle/core`'s `BridgeTransport`.
 *
 * @packageDocumentation
 */
export {
  type BridgeDependencies,
  type CallContext,
  codecFor,
  type ProtocolCodec,
  type ResourceContents,
  type ToolCallResult,
  type ToolResultContent,
} from "./call-context.js";
export {
  type CodeExecutionBridge,
  type CodeExecutionBridgeOptions,
  createCodeExecutionBridge,
} from "./code-execution-bridge.js";
export {
  buildCodeExecutionRequest,
  type CodeExecutionRequestInput,
  decodeCode,
} from "./code-execution-request.js";
export { type ConcurrencyLimit, limitConcurrency } from "./concurrency-limit.js";
export {
  createEventHub,
  DEFAULT_HISTORY_MAX_BYTES,
  type EventHub,
  type EventHubOptions,
  type EventStream,
  type EventStreamOptions,
  type HistoryFilter,
  type SubscribeOptions,
  type Subscription,
} from "./event-hub.js";
export { boundEventSize, DEFAULT_EVENT_MAX_BYTES, truncationMarker } from "./event-size.js";
export { createInvokerBridge, type InvokerBridge } from "./invoker-bridge.js";
export { applyResourceProvisioning, applyToolProvisioning } from "./provisioning.js";
export {
  buildResourceRequest,
  createResourceBridge,
  type ResourceBridge,
  type TextResourceContents,
} from "./resource-bridge.js";
export type { ExplainingResolver } from "./service-resolution.js";
export { buildToolInvokeRequest, validateRequiredArguments } from "./tool-invoke-request.js";
export { expandUriTemplate, isUriTemplate, matchUriTemplate, uriTemplateVariables } from "./uri-template.js";
