/**
 * The transport-abstraction core of Trestle: what a transport writer needs to implement `BridgeTransport` — the
 * protocol-neutral call model, call options, `TrestleError` and its `Code`, context values, interceptors, the
 * service target and the translation recorder. It knows no transport library, no database and no HTTP framework.
 *
 * The rest lives on subpaths: `@trestle/core/catalog` (the catalog's shapes, forwards, required arguments),
 * `@trestle/core/errors` (everything about errors), `@trestle/core/events` (tool-call events),
 * `@trestle/core/redaction` (the secret rules), `@trestle/core/routing` (resolvers and transport selection),
 * `@trestle/core/cancellation`, `@trestle/core/in-flight`, `@trestle/core/in-memory` (the in-memory transport), `@trestle/core/plugin` (the contract of a transport plugin loaded by configuration)
 * and `@trestle/core/testing` (the transport test kit).
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
  ToolCallDescription,
  ToolResult,
} from "./call.js";
export {
  type CallOptions,
  DEFAULT_STREAM_TIMEOUT_MS,
  DEFAULT_UNARY_TIMEOUT_MS,
} from "./call-options.js";
export { type CallScope, createCallScope, raceAbort } from "./call-scope.js";
export { type Cancellation, cancellationOf } from "./cancellation.js";
export type { PromptReference, ResourceReference, ToolReference } from "./catalog.js";
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
  type ErrorDetail,
  isTrestleError,
  TrestleError,
  type TrestleErrorOptions,
} from "./error.js";
export { healthFromProbeError } from "./health.js";
export {
  failedResponse,
  type Interceptor,
  type Invoke,
  type TransportRequest,
  type TransportResponse,
  withInterceptors,
} from "./interceptor.js";
export type { HandlerContext, ServiceHandlers } from "./service-handlers.js";
export { type ServiceTarget, type ServiceType, targetAddress } from "./service-target.js";
export {
  type TranslationLeg,
  type TranslationNote,
  type TranslationRecorder,
  translationRecorderKey,
} from "./translation.js";
export type { ServiceTimeouts, TimeoutOptions, TlsOptions } from "./transport-options.js";
export { upstreamCredentialKey, withCredentialHeaders } from "./upstream-credential.js";
