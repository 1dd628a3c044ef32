/**
 * Trestle's bridge layer: turns catalog entries and MCP arguments into protocol-neutral calls, chooses the
 * service, records redacted tool-call events, and turns failures into MCP-shaped results. It reaches
 * capability services only through `@trestle/core`'s `BridgeTransport`, and knows no wire's messages.
 *
 * @packageDocumentation
 */
export type {
  BridgeDependencies,
  CallContext,
  ToolCallResult,
  ToolResultContent,
} from "./call-context.js";
export {
  type CodeExecutionBridge,
  type CodeExecutionBridgeOptions,
  type CodeExecutionRequestInput,
  createCodeExecutionBridge,
} from "./code-execution-bridge.js";
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
  type ToolCallEventListener,
} from "./event-hub.js";
export { boundEventSize, DEFAULT_EVENT_MAX_BYTES, truncationMarker } from "./event-size.js";
export {
  type CallEventsOptions,
  type CallRecord,
  callEvents,
  callRecordKey,
  recordUndispatched,
  type StartedDetails,
} from "./interceptors/call-events.js";
export { type ConcurrencyLimit, concurrencyLimit } from "./interceptors/concurrency-limit.js";
export { interceptTransports } from "./interceptors/intercept-transports.js";
export { outcomeFeedback } from "./interceptors/outcome-feedback.js";
export { callSecretsKey, scrubSecrets } from "./interceptors/scrub-secrets.js";
export { createInvokerBridge, type InvokerBridge } from "./invoker-bridge.js";
export { applyResourceProvisioning, applyToolProvisioning } from "./provisioning.js";
export { createResourceBridge, type ResourceBridge, resourceRead } from "./resource-bridge.js";
export { addSecretMetadata, createSecretValues, type SecretValues } from "./secret-values.js";
export type { ExplainingResolver } from "./service-resolution.js";
export { createClientLegs } from "./translation-record.js";
export { expandUriTemplate, isUriTemplate, matchUriTemplate, uriTemplateVariables } from "./uri-template.js";
