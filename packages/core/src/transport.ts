import type {
  CodeExecutionReply,
  CodeExecutionRequest,
  ResourceReply,
  ResourceRequest,
  ToolInvokeReply,
  ToolInvokeRequest,
} from "@trestle/proto";
import type { CallOptions } from "./call-options.js";
import type { ServiceTarget } from "./service-target.js";

/** A property a capability declares for a provisioned tool or resource. */
export interface ProvisionedProperty {
  type: string;
  description: string;
  required: boolean;
}

/** What a capability returns from provisioning: where it stored configuration and secrets, and what it needs. */
export interface ProvisioningReference {
  /** URI of the stored configuration, to send as `configuration_uri` on later calls. */
  configurationUri: string;
  /** URI of the stored secrets, to send as `secrets_uri` on later calls. */
  secretsUri: string;
  /** Properties the capability declares, by name. */
  properties: Record<string, ProvisionedProperty>;
}

/**
 * Health of a service as seen by one probe.
 * - `healthy`: it answered and said it runs (or answered `UNIMPLEMENTED`: it has no probe but is up);
 * - `pending`: it is starting (`FAILED_PRECONDITION` or a status of STARTING);
 * - `unhealthy`: it answered with any other status (stopping, stopped);
 * - `down`: it could not be reached.
 */
export type HealthState = "healthy" | "pending" | "unhealthy" | "down";

/** The result of {@link BridgeTransport.probeHealth}. */
export interface HealthStatus {
  state: HealthState;
  /** Why, when not healthy (or when the service has no probe). */
  message?: string;
}

/**
 * How the bridge reaches a capability service. One implementation per wire protocol (gRPC, Connect, MCP, …);
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
