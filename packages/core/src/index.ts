/**
 * The transport-abstraction core of Trestle: the contract that transports implement and that the bridge, the
 * registry and the server are written against. It knows no transport library, no database and no HTTP
 * framework.
 *
 * @packageDocumentation
 */

export type {
  BridgeTransport,
  CallMetadata,
  CodeOutput,
  CodeRun,
  HealthState,
  HealthStatus,
  InputAnswers,
  InputRequest,
  InputRequired,
  InputResponse,
  LogMessage,
  Progress,
  PromptGet,
  PromptResult,
  PromptResultMessage,
  ProvisionedProperty,
  Provisioning,
  ProvisioningReference,
  ResourceRead,
  ResourceResult,
  ToolCall,
  ToolResult,
} from "./call.js";
export {
  CAPABILITY_SECRET_METADATA_KEY,
  type CallOptions,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_UNARY_TIMEOUT_MS,
  REQUEST_ID_METADATA_KEY,
} from "./call-options.js";
export { type CallScope, createCallScope, raceAbort } from "./call-scope.js";
export {
  type Cancellation,
  CancellationController,
  cancellationOf,
  setCancellation,
} from "./cancellation.js";
export type {
  ForwardA2aUpstream,
  ForwardHttpUpstream,
  ForwardReference,
  ForwardStdioUpstream,
  ForwardUpstream,
  InputSchema,
  Labels,
  Namespace,
  PromptArgument,
  PromptContent,
  PromptMessage,
  PromptReference,
  PropertyDefinition,
  PropertyTarget,
  ResourceParam,
  ResourcePayload,
  ResourceReference,
  ToolPayload,
  ToolReference,
  UpstreamAuth,
} from "./catalog.js";
export {
  type Annotations,
  type AudioContent,
  type ContentBlock,
  type EmbeddedResource,
  type Icon,
  type ImageContent,
  type JsonObject,
  type JsonValue,
  type ResourceContents,
  type ResourceLink,
  type TextContent,
  textContent,
} from "./content.js";
export {
  type ContextKey,
  type ContextValues,
  createContextKey,
  createContextValues,
} from "./context-values.js";
export {
  Code,
  codeFromNumber,
  codeFromString,
  codeToString,
  isServiceFailure,
  isTransient,
  isTrestleError,
  REQUIRED_CAPABILITIES_METADATA_KEY,
  requiredClientCapabilities,
  TrestleError,
  type TrestleErrorOptions,
} from "./error.js";
export {
  categorizeError,
  type DeferredToolCallEvents,
  type ErrorCategory,
  type ToolCallCompletedEvent,
  type ToolCallEvent,
  type ToolCallEventSink,
  type ToolCallFailedEvent,
  type ToolCallKind,
  type ToolCallStartedEvent,
  type TranslationLeg,
  type TranslationNote,
  type TranslationReport,
} from "./events.js";
export { describeForwardUpstream, forwardProgramName } from "./forward-upstream.js";
export { healthFromProbeError } from "./health.js";
export { type InFlightEntry, InFlightSet } from "./in-flight-set.js";
export {
  createInMemoryNetwork,
  createInMemoryTransport,
  type InMemoryNetwork,
  type InMemoryTransportOptions,
  type ServedCapability,
  type ServeOptions,
} from "./in-memory-transport.js";
export {
  failedResponse,
  type Interceptor,
  type Invoke,
  type TransportRequest,
  type TransportResponse,
  type TransportResults,
  withInterceptors,
} from "./interceptor.js";
export {
  AUTH_ARGUMENT_PREFIX,
  BODY_ARGUMENT,
  isSecretArgumentKey,
  isSecretHeaderKey,
  isSecretName,
  META_ARGUMENT_PREFIX,
  REDACTED,
  REDACTED_CODE,
  type RedactedBody,
  redactArguments,
  redactBody,
  redactHeaders,
  redactSecretsUri,
  redactToolCallEvent,
  redactUrlCredentials,
  redactValue,
  scrubSecrets,
  stringifyArgument,
} from "./redaction.js";
export type { CallOutcomeListener, ServiceResolver } from "./resolver.js";
export type { HandlerContext, ServiceHandlers } from "./service-handlers.js";
export {
  DEFAULT_PROTOCOL,
  isServiceType,
  SERVICE_TYPES,
  type ServiceTarget,
  type ServiceType,
  targetAddress,
} from "./service-target.js";
export {
  type SplitToolCall,
  type ToolCallParts,
  toolCallParts,
  toolCallPartsKey,
  validateRequiredArguments,
} from "./tool-call-parts.js";
export { type TranslationRecorder, translationRecorderKey } from "./translation.js";
export type { ServiceTimeouts, TimeoutOptions, TlsOptions } from "./transport-options.js";
export {
  createTransportSelector,
  type TransportSelector,
  type TransportSelectorOptions,
} from "./transport-selector.js";
export { upstreamCredentialKey, withCredentialHeaders } from "./upstream-credential.js";
