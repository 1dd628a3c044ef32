import type {
  CallOptions,
  CodeOutput,
  NeutralBridgeTransport,
  BridgeTransport as WanakuTypedTransport,
} from "@trestle/core";
import { buildCodeExecutionRequest } from "./code-execution-request.js";
import { codeOutputsFromReply, resourceResultFromReply, toolResultFromReply } from "./replies.js";
import { buildResourceRequest } from "./resource-request.js";
import { buildToolInvokeRequest } from "./tool-invoke-request.js";

/**
 * A transport that speaks Wanaku's messages: what the gRPC and Connect transports implement on their wire. The
 * router does not call it directly; {@link fromWanakuTransport} turns it into a protocol-neutral transport.
 */
export type WanakuTransport = WanakuTypedTransport;

function requestIdOf(options: CallOptions | undefined): string {
  return options?.requestId ?? "";
}

/**
 * The protocol-neutral transport over a {@link WanakuTransport}: each neutral call becomes the Wanaku
 * message the contract prescribes (built here, once), and each reply the neutral result it stands for. The
 * wire is byte-identical to a Wanaku client's. Wanaku has no prompts: the result has no `getPrompt`.
 */
export function fromWanakuTransport(wanaku: WanakuTransport): NeutralBridgeTransport {
  const neutral: NeutralBridgeTransport = {
    async callTool(call, target, options) {
      const request = buildToolInvokeRequest(call, requestIdOf(options));
      return toolResultFromReply(await wanaku.invokeTool(request, target, options));
    },
    async readResource(read, target, options) {
      const request = buildResourceRequest(read, requestIdOf(options));
      return resourceResultFromReply(await wanaku.acquireResource(request, target, options), read);
    },
    async *executeCode(run, target, options): AsyncGenerator<CodeOutput> {
      const request = buildCodeExecutionRequest(run, requestIdOf(options));
      for await (const reply of wanaku.executeCode(request, target, options)) {
        yield* codeOutputsFromReply(reply);
      }
    },
    provision(provisioning, target, options) {
      return wanaku.provision(
        provisioning.name,
        provisioning.configurationData,
        provisioning.secretsData,
        target,
        options,
      );
    },
    probeHealth: (target, options) => wanaku.probeHealth(target, options),
    close: () => wanaku.close(),
  };
  if (wanaku.release) {
    const release = wanaku.release.bind(wanaku);
    neutral.release = (target) => release(target);
  }
  return neutral;
}
