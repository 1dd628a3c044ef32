import type { MessageInitShape } from "@bufbuild/protobuf";
import type { HandlerContext } from "@trestle/core";
import type {
  CodeExecutionReplySchema,
  CodeExecutionRequest,
  HealthProbeReplySchema,
  HealthProbeRequest,
  ProvisionReplySchema,
  ProvisionRequest,
  ResourceReplySchema,
  ResourceRequest,
  ToolInvokeReplySchema,
  ToolInvokeRequest,
} from "@trestle/proto";

/** A reply a handler returns: a plain object with the reply's fields. */
export type ToolInvokeReplyInit = MessageInitShape<typeof ToolInvokeReplySchema>;
/** A reply a handler returns: a plain object with the reply's fields. */
export type ResourceReplyInit = MessageInitShape<typeof ResourceReplySchema>;
/** A reply a handler yields: a plain object with the reply's fields. */
export type CodeExecutionReplyInit = MessageInitShape<typeof CodeExecutionReplySchema>;
/** A reply a handler returns: a plain object with the reply's fields. */
export type ProvisionReplyInit = MessageInitShape<typeof ProvisionReplySchema>;
/** A reply a handler returns: a plain object with the reply's fields. */
export type HealthProbeReplyInit = MessageInitShape<typeof HealthProbeReplySchema>;

/**
 * The server side of the capability contract as plain functions: one per service of the contract. A missing
 * handler answers `UNIMPLEMENTED`. Throw a `TrestleError` to answer with its code; anything else thrown
 * answers `INTERNAL` with its message.
 *
 * `@trestle/capability` serves these over gRPC, gRPC-Web and Connect; `fromCapabilityHandlers` turns them
 * into neutral `ServiceHandlers` (for the in-memory transport, say).
 */
export interface CapabilityHandlers {
  /** `ToolInvoker.InvokeTool`. */
  toolInvoker?(
    request: ToolInvokeRequest,
    context: HandlerContext,
  ): Promise<ToolInvokeReplyInit> | ToolInvokeReplyInit;
  /** `ResourceAcquirer.ResourceAcquire`. */
  resourceAcquirer?(
    request: ResourceRequest,
    context: HandlerContext,
  ): Promise<ResourceReplyInit> | ResourceReplyInit;
  /** `CodeExecutor.ExecuteCode`: yield replies as output is produced. */
  codeExecutor?(
    request: CodeExecutionRequest,
    context: HandlerContext,
  ): AsyncIterable<CodeExecutionReplyInit>;
  /** `Provisioner.Provision`. */
  provisioner?(
    request: ProvisionRequest,
    context: HandlerContext,
  ): Promise<ProvisionReplyInit> | ProvisionReplyInit;
  /** `HealthProbe.GetStatus`. */
  healthProbe?(
    request: HealthProbeRequest,
    context: HandlerContext,
  ): Promise<HealthProbeReplyInit> | HealthProbeReplyInit;
}
