import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, TrestleError } from "@trestle/core";
import {
  type CodeExecutionReply,
  CodeExecutionReplySchema,
  type CodeExecutionRequest,
  ExecutionStatus,
  OutputType,
  type PayloadType,
  type ProvisionReply,
  ProvisionReplySchema,
  type ProvisionRequest,
  type ResourceReply,
  ResourceReplySchema,
  type ResourceRequest,
  type ToolInvokeReply,
  ToolInvokeReplySchema,
  type ToolInvokeRequest,
} from "@trestle/proto";
import { legacyCodeExecution, legacyProvision, legacyResource, legacyTool } from "@trestle/proto/legacy";

// The legacy dialect, applied by the gRPC transport at its edge: v1 requests become legacy requests and legacy
// replies become v1 replies, so nothing above the transport knows the dialect exists. Legacy enums have no UNSPECIFIED
// value: every legacy value is the v1 value minus one, and v1 UNSPECIFIED becomes the legacy default (0).

function toLegacyEnum(v1: number): number {
  return v1 > 0 ? v1 - 1 : 0;
}

function fromLegacyEnum(legacy: number): number {
  return legacy + 1;
}

/** The text of a legacy `isError` reply: its content, one entry per line. */
function errorText(content: readonly string[], fallback: string): string {
  const text = content.join("\n");
  return text === "" ? fallback : text;
}

/** A legacy `ToolInvokeRequest`: `configuration_uri` → `configurationURI`, `secrets_uri` → `secretsURI`. */
export function toLegacyToolRequest(request: ToolInvokeRequest): legacyTool.ToolInvokeRequest {
  return create(legacyTool.ToolInvokeRequestSchema, {
    uri: request.uri,
    body: request.body,
    arguments: request.arguments,
    configurationURI: request.configurationUri,
    secretsURI: request.secretsUri,
    headers: request.headers,
  });
}

/**
 * The v1 reply a legacy tool reply means.
 * @throws {TrestleError} `Internal`, with the reply's content as message, for an `isError` reply.
 */
export function fromLegacyToolReply(reply: legacyTool.ToolInvokeReply): ToolInvokeReply {
  if (reply.isError) {
    throw new TrestleError(errorText(reply.content, "The tool reported an error"), Code.Internal);
  }
  return create(ToolInvokeReplySchema, { content: reply.content });
}

/** A legacy `ResourceRequest`. */
export function toLegacyResourceRequest(request: ResourceRequest): legacyResource.ResourceRequest {
  return create(legacyResource.ResourceRequestSchema, {
    location: request.location,
    type: request.type,
    name: request.name,
    params: request.params,
    configurationURI: request.configurationUri,
    secretsURI: request.secretsUri,
  });
}

/**
 * The v1 reply a legacy resource reply means.
 * @throws {TrestleError} `Internal`, with the reply's content as message, for an `isError` reply.
 */
export function fromLegacyResourceReply(reply: legacyResource.ResourceReply): ResourceReply {
  if (reply.isError) {
    throw new TrestleError(
      errorText(reply.content, "The resource provider reported an error"),
      Code.Internal,
    );
  }
  return create(ResourceReplySchema, { content: reply.content });
}

/** A legacy `ProvisionRequest`: payload types shift down by one (v1 BUILTIN = 2 → legacy BUILTIN = 1). */
export function toLegacyProvisionRequest(request: ProvisionRequest): legacyProvision.ProvisionRequest {
  const payload = (p: { type: PayloadType; name: string; payload: string } | undefined) =>
    p && { type: toLegacyEnum(p.type) as legacyProvision.PayloadType, name: p.name, payload: p.payload };
  return create(legacyProvision.ProvisionRequestSchema, {
    uri: request.uri,
    configuration: payload(request.configuration),
    secret: payload(request.secret),
  });
}

/** The v1 reply a legacy provision reply means (same fields). */
export function fromLegacyProvisionReply(reply: legacyProvision.ProvisionReply): ProvisionReply {
  const properties: Record<string, { type: string; description: string; required: boolean }> = {};
  for (const [name, p] of Object.entries(reply.properties)) {
    properties[name] = { type: p.type, description: p.description, required: p.required };
  }
  return create(ProvisionReplySchema, {
    configurationUri: reply.configurationUri,
    secretUri: reply.secretUri,
    properties,
  });
}

/** A legacy `CodeExecutionRequest`: `timeout` stays milliseconds (0 when unset); no `request_id` field. */
export function toLegacyCodeRequest(request: CodeExecutionRequest): legacyCodeExecution.CodeExecutionRequest {
  return create(legacyCodeExecution.CodeExecutionRequestSchema, {
    uri: request.uri,
    body: request.body,
    code: request.code,
    arguments: request.arguments,
    configurationURI: request.configurationUri,
    secretsURI: request.secretsUri,
    timeout: request.timeout ?? 0n,
    environment: request.environment,
  });
}

const terminalStatuses = new Set<ExecutionStatus>([
  ExecutionStatus.COMPLETED,
  ExecutionStatus.FAILED,
  ExecutionStatus.CANCELLED,
  ExecutionStatus.TIMEOUT,
]);

/**
 * The v1 reply a legacy code execution reply means: enums shift up by one, the int64 millisecond timestamp
 * becomes a `google.protobuf.Timestamp` (0 → unset). Legacy `exitCode` is always on the wire, 0 by
 * default; it is kept only where it means something: on a completion or terminal-status reply, or when not 0.
 * `isError` has no v1 field; the caller decides what it means for the stream.
 */
export function fromLegacyCodeReply(reply: legacyCodeExecution.CodeExecutionReply): CodeExecutionReply {
  const outputType = fromLegacyEnum(reply.outputType) as OutputType;
  const status = fromLegacyEnum(reply.status) as ExecutionStatus;
  const meaningfulExit =
    outputType === OutputType.COMPLETION || terminalStatuses.has(status) || reply.exitCode !== 0;
  return create(CodeExecutionReplySchema, {
    content: reply.content,
    outputType,
    status,
    exitCode: meaningfulExit ? reply.exitCode : undefined,
    timestamp: reply.timestamp === 0n ? undefined : timestampFromMs(Number(reply.timestamp)),
  });
}
