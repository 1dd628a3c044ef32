import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  Code,
  type CodeOutput,
  type CodeRun,
  type ContentBlock,
  type HandlerContext,
  type ResourceRead,
  type ServiceHandlers,
  type ToolCall,
  TrestleError,
} from "@trestle/core";
import {
  CodeExecutionReplySchema,
  type CodeExecutionRequest,
  CodeExecutionRequestSchema,
  ExecutionStatus,
  HealthProbeReplySchema,
  HealthProbeRequestSchema,
  OutputType,
  ProvisionReplySchema,
  ProvisionRequestSchema,
  ResourceReplySchema,
  type ResourceRequest,
  ResourceRequestSchema,
  ToolInvokeReplySchema,
  type ToolInvokeRequest,
  ToolInvokeRequestSchema,
} from "@trestle/proto";
import type { CapabilityHandlers, CodeExecutionReplyInit } from "./capability-handlers.js";
import { buildCodeExecutionRequest } from "./code-execution-request.js";
import { healthFromRuntimeStatus, runtimeStatusFromHealth } from "./health.js";
import { REQUEST_ID_METADATA_KEY } from "./metadata-keys.js";
import { buildProvisionRequest, provisioningReferenceFromReply } from "./provisioning.js";
import { codeOutputsFromReply, resourceResultFromReply, toolResultFromReply } from "./replies.js";
import { buildResourceRequest } from "./resource-request.js";
import { describeWanakuToolCall } from "./tool-call-description.js";
import { BODY_ARGUMENT, META_ARGUMENT_PREFIX } from "./tool-call-parts.js";
import { buildToolInvokeRequest } from "./tool-invoke-request.js";

/** Copies a message through its binary form, so that an in-process call has the wire's semantics. */
function overTheWire<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): MessageShape<Desc> {
  return fromBinary(schema, toBinary(schema, message));
}

/** A reply init made into the message a wire would deliver. */
function delivered<Desc extends DescMessage>(schema: Desc, init: unknown): MessageShape<Desc> {
  return overTheWire(schema, create(schema, init as never));
}

/** The context a Wanaku handler sees: the request id in the metadata too, as the Wanaku transports send it. */
function onTheWire(context: HandlerContext): HandlerContext {
  if (!context.requestId) return context;
  return { ...context, metadata: { ...context.metadata, [REQUEST_ID_METADATA_KEY]: context.requestId } };
}

/**
 * Neutral {@link ServiceHandlers} that serve each call through Wanaku `CapabilityHandlers`: the call becomes
 * the request the contract prescribes (as a Wanaku client builds it), copied through its binary form, and the
 * handler's reply the neutral result; the handler's context carries the request id in its metadata, as the
 * Wanaku transports send it. A Wanaku handler that is absent leaves its neutral method absent (the call
 * answers `Unimplemented`). It describes a tool call as the Wanaku transports do (`describeToolCall`). Serve the
 * result on the in-memory network to test code above the transport against Wanaku-style handlers.
 */
export function fromCapabilityHandlers(handlers: CapabilityHandlers): ServiceHandlers {
  const service: ServiceHandlers = {};
  const { toolInvoker, resourceAcquirer, codeExecutor, provisioner, healthProbe } = handlers;
  if (toolInvoker) {
    service.describeToolCall = (call) => describeWanakuToolCall(call);
    service.callTool = async (call, context) => {
      const request = overTheWire(ToolInvokeRequestSchema, buildToolInvokeRequest(call, context.requestId));
      const init = await toolInvoker.call(handlers, request, onTheWire(context));
      return toolResultFromReply(delivered(ToolInvokeReplySchema, init));
    };
  }
  if (resourceAcquirer) {
    service.readResource = async (read, context) => {
      const request = overTheWire(ResourceRequestSchema, buildResourceRequest(read, context.requestId));
      const init = await resourceAcquirer.call(handlers, request, onTheWire(context));
      return resourceResultFromReply(delivered(ResourceReplySchema, init), read);
    };
  }
  if (codeExecutor) {
    service.executeCode = async function* (run, context): AsyncGenerator<CodeOutput> {
      const request = overTheWire(
        CodeExecutionRequestSchema,
        buildCodeExecutionRequest(run, context.requestId),
      );
      for await (const init of codeExecutor.call(handlers, request, onTheWire(context))) {
        yield* codeOutputsFromReply(delivered(CodeExecutionReplySchema, init));
      }
    };
  }
  if (provisioner) {
    service.provision = async (provisioning, context) => {
      const request = overTheWire(ProvisionRequestSchema, buildProvisionRequest(provisioning));
      const init = await provisioner.call(handlers, request, onTheWire(context));
      return provisioningReferenceFromReply(delivered(ProvisionReplySchema, init));
    };
  }
  if (healthProbe) {
    service.probeHealth = async (context) => {
      const request = create(HealthProbeRequestSchema, { id: "" });
      const init = await healthProbe.call(handlers, request, onTheWire(context));
      return healthFromRuntimeStatus(delivered(HealthProbeReplySchema, init).status);
    };
  }
  return service;
}

/**
 * The neutral call a `ToolInvokeRequest` stands for, as a capability service sees it: the tool by its uri
 * and URIs, the arguments as text, each header back as a `wanaku_meta_*` argument and a body as the
 * `wanaku_body` argument (declared in the input schema), so that building the request again gives the same
 * message.
 */
export function toolCallFromRequest(request: ToolInvokeRequest): ToolCall {
  const args: Record<string, string> = { ...request.arguments };
  for (const [name, value] of Object.entries(request.headers)) args[`${META_ARGUMENT_PREFIX}${name}`] = value;
  const call: ToolCall = { tool: { name: "", type: "", uri: request.uri }, arguments: args };
  if (request.body) {
    args[BODY_ARGUMENT] = request.body;
    call.tool.inputSchema = { type: "object", properties: { [BODY_ARGUMENT]: { type: "string" } } };
  }
  if (request.configurationUri) call.tool.configurationURI = request.configurationUri;
  if (request.secretsUri) call.tool.secretsURI = request.secretsUri;
  return call;
}

/** The neutral read a `ResourceRequest` stands for. */
export function resourceReadFromRequest(request: ResourceRequest): ResourceRead {
  const read: ResourceRead = {
    resource: { location: request.location, type: request.type, name: request.name },
    uri: request.location,
    params: { ...request.params },
  };
  if (request.configurationUri) read.resource.configurationURI = request.configurationUri;
  if (request.secretsUri) read.resource.secretsURI = request.secretsUri;
  return read;
}

/** The neutral run a `CodeExecutionRequest` stands for (engine and language from its uri). */
export function codeRunFromRequest(request: CodeExecutionRequest): CodeRun {
  const uri = new URL(request.uri);
  const run: CodeRun = {
    engineType: uri.hostname,
    language: decodeURIComponent(uri.pathname.slice(1)),
    code: request.code,
    arguments: { ...request.arguments },
    environment: { ...request.environment },
  };
  if (request.timeout !== undefined) run.timeoutMs = Number(request.timeout);
  if (request.body) run.body = request.body;
  if (request.configurationUri) run.configurationUri = request.configurationUri;
  if (request.secretsUri) run.secretsUri = request.secretsUri;
  return run;
}

/** A block as one of the contract's content strings: text as it is, anything else as its JSON. */
function blockText(block: ContentBlock): string {
  return block.type === "text" ? block.text : JSON.stringify(block);
}

const exitStatuses = {
  completed: ExecutionStatus.COMPLETED,
  failed: ExecutionStatus.FAILED,
  cancelled: ExecutionStatus.CANCELLED,
  timeout: ExecutionStatus.TIMEOUT,
} as const;

/** The reply a Wanaku engine sends for one output. */
export function replyFromCodeOutput(output: CodeOutput): CodeExecutionReplyInit {
  const content = output.text ? [output.text] : [];
  switch (output.type) {
    case "output":
      return {
        content,
        outputType: output.stream === "stdout" ? OutputType.STDOUT : OutputType.STDERR,
        status: ExecutionStatus.RUNNING,
        timestamp: timestampFromMs(Date.now()),
      };
    case "status":
      return {
        content,
        outputType: OutputType.STATUS,
        status: output.status === "pending" ? ExecutionStatus.PENDING : ExecutionStatus.RUNNING,
      };
    case "exit":
      return {
        content,
        outputType: OutputType.COMPLETION,
        status: exitStatuses[output.status],
        ...(output.exitCode !== undefined ? { exitCode: output.exitCode } : {}),
        timestamp: timestampFromMs(Date.now()),
      };
  }
}

/**
 * Wanaku `CapabilityHandlers` that serve neutral {@link ServiceHandlers}: each request becomes the neutral
 * call it stands for, and each result the contract's reply (text blocks as they are, other blocks as JSON
 * text; a tool result with `isError` as an `Internal` failure carrying its text, since the contract's reply
 * has no error flag). Serve them with `@trestle/capability` to reach neutral handlers over gRPC or Connect.
 */
export function wanakuHandlers(service: ServiceHandlers): CapabilityHandlers {
  const handlers: CapabilityHandlers = {};
  const { callTool, readResource, executeCode, provision, probeHealth } = service;
  if (callTool) {
    handlers.toolInvoker = async (request, context) => {
      const result = await callTool.call(service, toolCallFromRequest(request), context);
      const content = result.content.map(blockText);
      if (result.isError) throw new TrestleError(content.join("\n") || "The tool failed", Code.Internal);
      return { content };
    };
  }
  if (readResource) {
    handlers.resourceAcquirer = async (request, context) => {
      const result = await readResource.call(service, resourceReadFromRequest(request), context);
      return { content: result.contents.map((c) => ("text" in c ? c.text : c.blob)) };
    };
  }
  if (executeCode) {
    handlers.codeExecutor = async function* (request, context) {
      for await (const output of executeCode.call(service, codeRunFromRequest(request), context)) {
        yield replyFromCodeOutput(output);
      }
    };
  }
  if (provision) {
    handlers.provisioner = async (request, context) => {
      const reference = await provision.call(
        service,
        {
          name: request.configuration?.name ?? request.secret?.name ?? "",
          configurationData: request.configuration?.payload ?? "",
          secretsData: request.secret?.payload ?? "",
        },
        context,
      );
      return {
        configurationUri: reference.configurationUri,
        secretUri: reference.secretsUri,
        properties: reference.properties,
      };
    };
  }
  if (probeHealth) {
    handlers.healthProbe = async (_request, context) => ({
      status: runtimeStatusFromHealth((await probeHealth.call(service, context)).state),
    });
  }
  return handlers;
}
