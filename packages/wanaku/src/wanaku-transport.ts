import {
  type BridgeTransport,
  type CallOptions,
  type CodeOutput,
  type HealthStatus,
  type ProvisioningReference,
  type ServiceTarget,
  toolCallPartsKey,
} from "@trestle/core";
import type {
  CodeExecutionReply,
  CodeExecutionRequest,
  ResourceReply,
  ResourceRequest,
  ToolInvokeReply,
  ToolInvokeRequest,
} from "@trestle/proto";
import { buildCodeExecutionRequest } from "./code-execution-request.js";
import { codeOutputsFromReply, resourceResultFromReply, toolResultFromReply } from "./replies.js";
import { buildResourceRequest } from "./resource-request.js";
import { buildToolInvokeRequest } from "./tool-invoke-request.js";

/**
 * A transport that speaks Wanaku's messages on its wire: what the gRPC and Connect transports implement.
 * The router does not call it directly; {@link fromWanakuTransport} turns it into a protocol-neutral
 * {@link BridgeTransport}. Tests of a Wanaku service's raw wire use it as it is.
 *
 * Every method rejects with a `TrestleError`, as `BridgeTransport`'s do.
 */
export interface WanakuTransport {
  /** `Provisioner.Provision` with BUILTIN payloads named `name`. */
  provision(
    name: string,
    configData: string,
    secretsData: string,
    target: ServiceTarget,
    options?: CallOptions,
  ): Promise<ProvisioningReference>;
  /** `ToolInvoker.InvokeTool`. */
  invokeTool(
    request: ToolInvokeRequest,
    target: ServiceTarget,
    options?: CallOptions,
  ): Promise<ToolInvokeReply>;
  /** `ResourceAcquirer.ResourceAcquire`. */
  acquireResource(
    request: ResourceRequest,
    target: ServiceTarget,
    options?: CallOptions,
  ): Promise<ResourceReply>;
  /** `CodeExecutor.ExecuteCode`: each reply as the engine produces it; breaking out cancels the run. */
  executeCode(
    request: CodeExecutionRequest,
    target: ServiceTarget,
    options?: CallOptions,
  ): AsyncIterable<CodeExecutionReply>;
  /** `HealthProbe.GetStatus`, as a health state. Never rejects for the service's state. */
  probeHealth(target: ServiceTarget, options?: CallOptions): Promise<HealthStatus>;
  /** Lets go of any connection kept for `target`. Optional. */
  release?(target: ServiceTarget): void;
  /** Closes every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * The protocol-neutral transport over a {@link WanakuTransport}: each neutral call becomes the Wanaku
 * message the contract prescribes (built here, once), and each reply the neutral result it stands for. The
 * wire is byte-identical to a Wanaku client's. Wanaku has no prompts: the result has no `getPrompt`.
 */
export function fromWanakuTransport(wanaku: WanakuTransport): BridgeTransport {
  const neutral: BridgeTransport = {
    async callTool(call, target, callOptions) {
      // Split once per call: the bridge split it already, unless an interceptor has changed the call since.
      const split = callOptions?.contextValues?.get(toolCallPartsKey);
      const parts = split?.arguments === call.arguments && split.tool === call.tool ? split.parts : undefined;
      const request = buildToolInvokeRequest(call, callOptions?.requestId ?? "", parts);
      return toolResultFromReply(await wanaku.invokeTool(request, target, callOptions));
    },
    async readResource(read, target, callOptions) {
      const request = buildResourceRequest(read, callOptions?.requestId ?? "");
      return resourceResultFromReply(await wanaku.acquireResource(request, target, callOptions), read);
    },
    async *executeCode(run, target, callOptions): AsyncGenerator<CodeOutput> {
      const request = buildCodeExecutionRequest(run, callOptions?.requestId ?? "");
      for await (const reply of wanaku.executeCode(request, target, callOptions)) {
        yield* codeOutputsFromReply(reply);
      }
    },
    provision(provisioning, target, callOptions) {
      return wanaku.provision(
        provisioning.name,
        provisioning.configurationData,
        provisioning.secretsData,
        target,
        callOptions,
      );
    },
    probeHealth: (target, callOptions) => wanaku.probeHealth(target, callOptions),
    close: () => wanaku.close(),
  };
  if (wanaku.release) {
    const release = wanaku.release.bind(wanaku);
    neutral.release = (target) => release(target);
  }
  return neutral;
}
