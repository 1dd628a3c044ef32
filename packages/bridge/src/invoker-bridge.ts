import {
  type BridgeTransport,
  Code,
  createContextValues,
  type JsonObject,
  type ServiceTarget,
  type ToolCall,
  type ToolCallDescription,
  type ToolReference,
  type ToolResult,
  TrestleError,
  translationRecorderKey,
} from "@trestle/core";
import { type ToolPayload, validateRequiredArguments } from "@trestle/core/catalog";
import type { TranslationReport } from "@trestle/core/events";
import { redactSecretsUri } from "@trestle/core/redaction";
import { describeArguments, describeUndispatched } from "./argument-description.js";
import type { BridgeDependencies, CallContext } from "./call-context.js";
import { callOptionsFor } from "./call-context.js";
import { describeFailure } from "./failure.js";
import {
  type CallEventsOptions,
  type CallRecord,
  callRecordKey,
  recordUndispatched,
  type StartedDetails,
} from "./interceptors/call-events.js";
import { callSecretsKey } from "./interceptors/scrub-secrets.js";
import { applyToolProvisioning, provisionOnService } from "./provisioning.js";
import { addSecretMetadata, createSecretValues, type SecretValues } from "./secret-values.js";
import { resolveServiceNow, resolveToolService } from "./service-resolution.js";
import { createClientLegs, translationFor } from "./translation-record.js";

/**
 * The capabilities a backend's refusal says the calling client lacks (a `FailedPrecondition` with a
 * `required-client-capabilities` detail): the front's to answer, in its client's protocol.
 */
function requiredCapabilities(error: unknown): boolean {
  return (
    error instanceof TrestleError &&
    error.code === Code.FailedPrecondition &&
    error.findDetail("required-client-capabilities") !== undefined
  );
}

/** Routes `tools/call` to capability services and provisions tools on them. */
export interface InvokerBridge {
  /**
   * Calls `tool` with `args` on the service that executes tools of its type. The call's redacted record and
   * secret values travel in its context values, so the `callEvents` interceptor records it as a STARTED event
   * followed by one COMPLETED or FAILED event, and `scrubSecrets` scrubs what comes back; a call that fails
   * before it reaches a transport (missing arguments, no service) the bridge records itself.
   *
   * Rejects only when the backend refused because the client lacks a capability (a `FailedPrecondition` with a
   * `required-client-capabilities` detail): the front answers that in its client's protocol. Every other failure
   * (missing arguments, no service, service down, an error the service reported, cancellation) comes back as an
   * `isError: true` result whose text a user can act on. The secret values the call sends — what the target's
   * transport says are secret (`describeToolCall`: for a Wanaku service, its credential headers and body fields),
   * else the secret-named arguments by core's rules — are scrubbed from the result and the events, even when the
   * service echoes them back. The arguments reach the transport as the client sent them.
   */
  execute(args: Record<string, unknown>, tool: ToolReference, context?: CallContext): Promise<ToolResult>;
  /**
   * Provisions the tool's configuration and secrets on the service that executes it and returns a copy of the
   * tool with the returned URIs and properties.
   *
   * @throws TrestleError `NotFound` when no service serves the tool's type; the service's code otherwise. The
   * payloads never appear in the error.
   */
  provision(payload: ToolPayload, context?: CallContext): Promise<ToolReference>;
}

function textResult(texts: string[], isError: boolean): ToolResult {
  const result: ToolResult = { content: texts.map((text) => ({ type: "text", text })) };
  if (isError) result.isError = true;
  return result;
}

/**
 * The {@link CallRecord} of a tool call. Built here, apart from the call's own scope, on purpose: a history may
 * keep it until it is read, and it must then hold the request it records and nothing else of the call (not its
 * context, whose callbacks reach the client's connection). A class rather than an object literal with a getter:
 * every record has one shape, made without the runtime's slow path for accessor literals (one per tool call).
 */
class ToolCallRecord implements CallRecord {
  readonly kind = "tool";
  readonly operation = "tool invocation";
  readonly toolName: string;
  readonly toolType: string;
  readonly namespace: string | undefined;
  readonly connectionId: string | undefined;
  readonly principal: string | undefined;
  readonly codeRun: string | undefined;
  readonly requestId: string | undefined;
  readonly startedAt: number;
  readonly estimatedBytes: number | undefined;
  translation: TranslationReport | undefined = undefined;
  readonly #tool: ToolReference;
  /** How the call travels, as its transport said (or core's rules for the arguments): it records the request. */
  readonly #description: ToolCallDescription;
  #started: StartedDetails | undefined = undefined;

  constructor(
    tool: ToolReference,
    description: ToolCallDescription,
    context: CallContext | undefined,
    startedAt: number,
  ) {
    this.toolName = tool.name;
    this.toolType = tool.type;
    this.namespace = context?.namespace ?? tool.namespace;
    this.connectionId = context?.connectionId;
    this.principal = context?.principal;
    this.codeRun = context?.codeRun;
    this.requestId = context?.requestId;
    this.startedAt = startedAt;
    this.estimatedBytes = description.estimatedBytes;
    this.#tool = tool;
    this.#description = description;
  }

  get what(): string {
    return toolWhat(this.toolName);
  }

  /** Redacted when an event is built, not for every call: no event is built while none is kept or read. */
  get started(): StartedDetails {
    if (this.#started === undefined) {
      const request = this.#description.record();
      this.#started = {
        arguments: request.arguments,
        headers: request.headers,
        body: request.body,
        configurationURI: this.#tool.configurationURI ?? "",
        secretsURI: redactSecretsUri(this.#tool.secretsURI),
      };
    }
    return this.#started;
  }
}

/** How a failure's message names a tool: `tool 'weather'`. */
function toolWhat(name: string): string {
  return `tool '${name}'`;
}

/**
 * Creates the {@link InvokerBridge}.
 *
 * @example
 * ```ts
 * const bridge = createInvokerBridge({ resolver, transports, events: hub });
 * const result = await bridge.execute({ city: "Oslo" }, tool, { requestId: "7", signal });
 * ```
 */
export function createInvokerBridge(deps: BridgeDependencies): InvokerBridge {
  const eventOptions: CallEventsOptions = { sink: deps.events, clock: deps.clock, newId: deps.newId };
  const clock = deps.clock ?? Date.now;

  // Backend legs a report starts with until a transport says which it spoke: frozen, one per protocol and kind.
  const legs = createClientLegs();

  async function invoke(
    args: Record<string, unknown>,
    tool: ToolReference,
    context: CallContext | undefined,
    secrets: SecretValues,
  ): Promise<ToolResult> {
    const startedAt = clock();
    const what = toolWhat(tool.name);
    // The arguments go to the transport as the client sent them: how a wire carries them is the transport's.
    const call: ToolCall = { tool, arguments: args as JsonObject };
    if (context?.input) call.input = context.input;
    let target: ServiceTarget | undefined;
    let transport: BridgeTransport;
    let description: ToolCallDescription;
    try {
      validateRequiredArguments(args, tool);
      target =
        resolveServiceNow(deps.resolver, tool.type, "tool-invoker") ??
        (await resolveToolService(deps.resolver, tool.type));
      transport = deps.transports.transportFor(target);
      // The transport says which values of what it sends are secret (and checks that it can send them); a transport
      // that sends the arguments as they are says nothing, and core's name rules judge them.
      description = transport.describeToolCall?.(call, target) ?? describeArguments(args);
    } catch (thrown) {
      // Never dispatched: no transport (and so no interceptor) saw the call, the bridge records it.
      const error = TrestleError.from(thrown);
      const undispatched = describeUndispatched(args);
      for (const value of undispatched.secretValues) secrets.add(value);
      recordUndispatched(
        new ToolCallRecord(tool, undispatched, context, startedAt),
        error,
        eventOptions,
        secrets,
      );
      const message = secrets.scrub(
        describeFailure(error, { ...(target ? { target } : {}), what, operation: "tool invocation" }),
      );
      if (context?.failures === "reject") {
        // The typed details go along (an upstream's JSON-RPC code, which a task records), scrubbed like the text.
        throw new TrestleError(message, error.code, { details: secrets.scrubDeep(error.details) });
      }
      return textResult([message], true);
    }
    for (const value of description.secretValues) secrets.add(value);
    const options = callOptionsFor(context);
    // One bag per call: the call events and the scrubbing interceptors read what only the bridge knows.
    const callRecord = new ToolCallRecord(tool, description, context, startedAt);
    options.contextValues = (options.contextValues ?? createContextValues())
      .set(callRecordKey, callRecord)
      .set(callSecretsKey, secrets)
      .set(
        translationRecorderKey,
        translationFor(callRecord, context?.client, target, context?.translationNotes, legs),
      );
    try {
      return await transport.callTool(call, target, options);
    } catch (thrown) {
      // A refusal for what the client cannot do is the front's to answer, in its client's protocol.
      if (requiredCapabilities(thrown)) throw thrown;
      // The bridge words this message around the error's text (already scrubbed by the `scrubSecrets` interceptor
      // where the composition root installed it); a failure path, so one more scrub is cheap insurance.
      const error = TrestleError.from(thrown);
      const message = secrets.scrub(describeFailure(error, { target, what, operation: "tool invocation" }));
      if (context?.failures === "reject") {
        // The typed details go along (an upstream's JSON-RPC code, which a task records), scrubbed like the text.
        throw new TrestleError(message, error.code, { details: secrets.scrubDeep(error.details) });
      }
      return textResult([message], true);
    }
  }

  return {
    async execute(args, tool, context) {
      const secrets = createSecretValues();
      addSecretMetadata(secrets, context?.metadata);
      try {
        return await invoke(args ?? {}, tool, context, secrets);
      } catch (thrown) {
        if (requiredCapabilities(thrown) || context?.failures === "reject") throw thrown;
        // Only a defect can get here (invoke catches everything it awaits); keep the promise of never rejecting.
        const message = secrets.scrub(TrestleError.from(thrown, Code.Internal).rawMessage);
        return textResult(
          [`Internal error in the router while calling ${toolWhat(tool.name)}: ${message}`],
          true,
        );
      }
    },

    async provision(payload, context) {
      const tool = payload.payload;
      const target = await resolveToolService(deps.resolver, tool.type);
      const reference = await provisionOnService({
        transport: deps.transports.transportFor(target),
        target,
        name: tool.name,
        what: toolWhat(tool.name),
        configurationData: payload.configurationData,
        secretsData: payload.secretsData,
        context,
      });
      return applyToolProvisioning(tool, reference);
    },
  };
}
