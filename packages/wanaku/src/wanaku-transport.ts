import {
  type BridgeTransport,
  type CallOptions,
  type CodeOutput,
  type HealthStatus,
  type ProvisioningReference,
  type ServiceTarget,
  type ToolCall,
  type TranslationLeg,
  translationRecorderKey,
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
import { describeWanakuToolCall } from "./tool-call-description.js";
import { type ToolCallParts, toolCallParts } from "./tool-call-parts.js";
import { buildToolInvokeRequest } from "./tool-invoke-request.js";

/**
 * A transport that speaks Wanaku's messages on its wire: what the gRPC and Connect transports implement.
 * The router does not call it directly; {@link fromWanakuTransport} turns it into a protocol-neutral
 * {@link BridgeTransport}. Tests of a Wanaku service's raw wire use it as it is.
 *
 * Every method rejects with a `TrestleError`, as `BridgeTransport`'s do.
 */
export interface WanakuTransport {
  /** The protocol it speaks the messages over (`grpc`, `connect`): the name of the leg it reports for each call. */
  readonly protocol: string;
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

/** The parts a call was described with, kept for the call that sends it. */
interface DescribedParts {
  arguments: ToolCall["arguments"];
  tool: ToolCall["tool"];
  parts: ToolCallParts;
}

/**
 * The protocol-neutral transport over a {@link WanakuTransport}: each neutral call becomes the Wanaku
 * message the contract prescribes (built here, once), and each reply the neutral result it stands for. The
 * wire is byte-identical to a Wanaku client's. Wanaku has no prompts: the result has no `getPrompt`.
 *
 * It applies the contract's rules itself, for the calls it sends and no other: `describeToolCall` says which
 * values of a tool call's arguments, headers and body are secret and what its event records (see
 * `describeWanakuToolCall`); each tool call and code execution reports its leg (`{ protocol, method:
 * "InvokeTool" | "ExecuteCode" }`) to the call's translation recorder; a resource's binary content comes back as
 * a `blob` (see `resourceResultFromReply`).
 */
export function fromWanakuTransport(wanaku: WanakuTransport): BridgeTransport {
  // Frozen and shared by every call: a history keeps a report per call, and this leg once.
  const invokeLeg: TranslationLeg = Object.freeze({ protocol: wanaku.protocol, method: "InvokeTool" });
  const executeLeg: TranslationLeg = Object.freeze({ protocol: wanaku.protocol, method: "ExecuteCode" });
  // A call described before it is sent is split once: its parts wait here for it, held only as long as the call.
  const described = new WeakMap<ToolCall, DescribedParts>();

  function partsFor(call: ToolCall): ToolCallParts | undefined {
    const kept = described.get(call);
    if (!kept) return undefined;
    described.delete(call);
    // An interceptor may have changed the call's arguments or tool since: then split it again.
    return kept.arguments === call.arguments && kept.tool === call.tool ? kept.parts : undefined;
  }

  const neutral: BridgeTransport = {
    describeToolCall(call) {
      const parts = toolCallParts(call.arguments, call.tool);
      described.set(call, { arguments: call.arguments, tool: call.tool, parts });
      return describeWanakuToolCall(call, parts);
    },
    async callTool(call, target, callOptions) {
      callOptions?.contextValues?.get(translationRecorderKey)?.backend(invokeLeg);
      const request = buildToolInvokeRequest(call, callOptions?.requestId ?? "", partsFor(call));
      return toolResultFromReply(await wanaku.invokeTool(request, target, callOptions));
    },
    async readResource(read, target, callOptions) {
      const request = buildResourceRequest(read, callOptions?.requestId ?? "");
      return resourceResultFromReply(await wanaku.acquireResource(request, target, callOptions), read);
    },
    async *executeCode(run, target, callOptions): AsyncGenerator<CodeOutput> {
      callOptions?.contextValues?.get(translationRecorderKey)?.backend(executeLeg);
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
