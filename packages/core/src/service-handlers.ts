import type {
  CodeOutput,
  CodeRun,
  HealthStatus,
  PromptGet,
  PromptResult,
  Provisioning,
  ProvisioningReference,
  ResourceRead,
  ResourceResult,
  ToolCall,
  ToolCallDescription,
  ToolResult,
} from "./call.js";

/** What a service handler knows about the call it serves. */
export interface HandlerContext {
  /** Aborted when the caller cancels, the deadline passes, or the connection drops. */
  signal: AbortSignal;
  /** The caller's request id, or "" when none was sent. */
  requestId: string;
  /** Request metadata, keys lower-cased. */
  metadata: Readonly<Record<string, string>>;
}

/**
 * The server side of the protocol-neutral contract as plain functions, one per {@link BridgeTransport}
 * method. A missing handler answers `Unimplemented` (a missing `probeHealth`: healthy, as a service without
 * a probe that answers). Throw a `TrestleError` to answer with its code; anything else thrown answers
 * `Internal` with its message.
 *
 * The in-memory transport serves these directly; `@trestle/wanaku` serves them over the Wanaku contract
 * (`wanakuHandlers`), and the transport test kit's reference capability is written with them.
 */
export interface ServiceHandlers {
  /**
   * How a call to these handlers travels, for handlers that stand for a wire (Wanaku handlers served in memory
   * through `fromCapabilityHandlers`): what the in-memory transport's `describeToolCall` answers. Optional.
   */
  describeToolCall?(call: ToolCall): ToolCallDescription | undefined;
  callTool?(call: ToolCall, context: HandlerContext): Promise<ToolResult> | ToolResult;
  readResource?(read: ResourceRead, context: HandlerContext): Promise<ResourceResult> | ResourceResult;
  getPrompt?(get: PromptGet, context: HandlerContext): Promise<PromptResult> | PromptResult;
  /** Yield outputs as they are produced. */
  executeCode?(run: CodeRun, context: HandlerContext): AsyncIterable<CodeOutput>;
  provision?(
    provisioning: Provisioning,
    context: HandlerContext,
  ): Promise<ProvisioningReference> | ProvisioningReference;
  probeHealth?(context: HandlerContext): Promise<HealthStatus> | HealthStatus;
}
