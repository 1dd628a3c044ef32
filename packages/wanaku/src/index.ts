/**
 * The Wanaku capability contract's rules in one place: how a protocol-neutral Trestle call becomes Wanaku's
 * protobuf request (the tool's uri, arguments as text, `wanaku_meta_*`/`wanaku_auth_*` headers, the body
 * fallback, the code execution uri, BUILTIN provisioning payloads), how each reply becomes a neutral result
 * (binary resource content as a `blob`), which values of a call are secret, the legacy dialect and the wire's
 * metadata keys. The gRPC and Connect transports and the capability SDK apply them, and nothing else does: the
 * bridge and the fronts know none of them.
 *
 * @packageDocumentation
 */
export type {
  CapabilityHandlers,
  CodeExecutionReplyInit,
  HealthProbeReplyInit,
  ProvisionReplyInit,
  ResourceReplyInit,
  ToolInvokeReplyInit,
} from "./capability-handlers.js";
export {
  buildCodeExecutionRequest,
  codeArguments,
  decodeCode,
} from "./code-execution-request.js";
export { isWanakuDialect, WANAKU_DIALECTS, type WanakuDialect, wanakuDialectOf } from "./dialect.js";
export { healthFromRuntimeStatus, runtimeStatusFromHealth } from "./health.js";
export {
  fromLegacyCodeReply,
  fromLegacyProvisionReply,
  fromLegacyResourceReply,
  fromLegacyToolReply,
  toLegacyCodeRequest,
  toLegacyProvisionRequest,
  toLegacyResourceRequest,
  toLegacyToolRequest,
} from "./legacy-dialect.js";
export { CAPABILITY_SECRET_METADATA_KEY, REQUEST_ID_METADATA_KEY } from "./metadata-keys.js";
export { buildProvisionRequest, provisioningReferenceFromReply } from "./provisioning.js";
export { codeOutputsFromReply, resourceResultFromReply, toolResultFromReply } from "./replies.js";
export { buildResourceRequest } from "./resource-request.js";
export {
  codeRunFromRequest,
  fromCapabilityHandlers,
  replyFromCodeOutput,
  resourceReadFromRequest,
  toolCallFromRequest,
  wanakuHandlers,
} from "./service-handlers.js";
export { describeWanakuToolCall } from "./tool-call-description.js";
export {
  AUTH_ARGUMENT_PREFIX,
  BODY_ARGUMENT,
  META_ARGUMENT_PREFIX,
  type ToolCallParts,
  toolCallParts,
} from "./tool-call-parts.js";
export { buildToolInvokeRequest } from "./tool-invoke-request.js";
export { fromWanakuTransport, type WanakuTransport } from "./wanaku-transport.js";
