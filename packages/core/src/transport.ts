import type {
  CodeExecutionReply,
  CodeExecutionRequest,
  ResourceReply,
  ResourceRequest,
  ToolInvokeReply,
  ToolInvokeRequest,
} from "@trestle/proto";
import type { CallOptions, HealthStatus, ProvisioningReference } from "./call.js";
import type { ServiceTarget } from "./service-target.js";

/**
 * The Wanaku-typed transport contract, replaced by the protocol-neutral {@link NeutralBridgeTransport} in
 * `call.ts`. How the bridge reaches a capability service. One implementation per wire protocol (gRPC, Connect, MCP, …);
 * the bridge and the server know only this interface, so a transport can be swapped per service.
 *
 * Every method rejects with a {@link TrestleError}: `Unavailable` when the service cannot be reached,
 * `DeadlineExceeded` when `timeoutMs` passes, `Canceled` when `signal` aborts, and the service's own code
 * otherwise. Implementations prove their behaviour with the kit in `@trestle/core/testing`.
 */
export interface BridgeTransport {
  /** Stores configuration and secrets for a tool or resource on the service. */
  provision(
    name: string,
    configData: string,
    secretsData: string,
    target: ServiceTarget,
    options?: CallOptions,
  ): Promise<ProvisioningReference>;
  /** Invokes a tool. */
  invokeTool(
    request: ToolInvokeRequest,
    target: ServiceTarget,
    options?: CallOptions,
  ): Promise<ToolInvokeReply>;
  /** Reads a resource. */
  acquireResource(
    request: ResourceRequest,
    target: ServiceTarget,
    options?: CallOptions,
  ): Promise<ResourceReply>;
  /**
   * Runs code and yields each reply as the engine produces it. Breaking out of the iteration (or aborting
   * `signal`) cancels the execution on the engine.
   */
  executeCode(
    request: CodeExecutionRequest,
    target: ServiceTarget,
    options?: CallOptions,
  ): AsyncIterable<CodeExecutionReply>;
  /** Asks the service whether it runs. Never rejects for the service's state: that is the answer. */
  probeHealth(target: ServiceTarget, options?: CallOptions): Promise<HealthStatus>;
  /** Lets go of any connection kept for `target` (it was deregistered). Optional. */
  release?(target: ServiceTarget): void;
  /** Closes every connection. Calls made afterwards reject with `Unavailable`. Idempotent. */
  close(): Promise<void>;
}

export type { HealthState, HealthStatus, ProvisionedProperty, ProvisioningReference } from "./call.js";
