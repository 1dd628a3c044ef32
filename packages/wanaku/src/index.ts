/**
 * The Wanaku capability contract's rules in one place: how a protocol-neutral Trestle call becomes Wanaku's
 * protobuf request (the tool's uri, arguments as text, `wanaku_meta_*`/`wanaku_auth_*` headers, the body
 * fallback, the code execution uri, BUILTIN provisioning payloads) and how each reply becomes a neutral
 * result. The gRPC and Connect transports and the capability SDK share it, so the wire stays one.
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
export { healthFromRuntimeStatus, runtimeStatusFromHealth } from "./health.js";
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
export { buildToolInvokeRequest } from "./tool-invoke-request.js";
export { fromWanakuTransport, type WanakuTransport } from "./wanaku-transport.js";
