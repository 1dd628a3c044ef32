import {
  Code,
  createContextValues,
  type JsonObject,
  REDACTED,
  redactArguments,
  redactBody,
  redactHeaders,
  redactSecretsUri,
  requiredClientCapabilities,
  type ServiceTarget,
  type ToolCall,
  type ToolCallParts,
  type ToolPayload,
  type ToolReference,
  type ToolResult,
  type TranslationReport,
  TrestleError,
  toolCallParts,
  toolCallPartsKey,
  translationRecorderKey,
  validateRequiredArguments,
} from "@trestle/core";
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
import { translationFor } from "./translation-record.js";

/** Routes `tools/call` to capability services and provisions tools on them. */
export interface InvokerBridge {
  /**
   * Calls `tool` with `args` on the service that executes tools of its type. The call's redacted record and
   * secret values travel in its context values, so the `callEvents` interceptor records it as a STARTED event
   * followed by one COMPLETED or FAILED event, and `scrubSecrets` scrubs what comes back; a call that fails
   * before it reaches a transport (missing arguments, no service) the bridge records itself.
   *
   * Rejects only when the backend refused because the client lacks a capability (a `FailedPrecondition` naming
   * them, see `requiredClientCapabilities`): the front answers that in its client's protocol. Every other failure
   * (missing arguments, no service, service down, an error the service reported, cancellation) comes back as an
   * `isError: true` result whose text a user can act on. Secret values sent in
   * the call (`wanaku_auth_*` values, secret-looking arguments, credential headers) are scrubbed from the
   * result and the events, even when the service echoes them back.
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

/** Redacted arguments, or none when a value cannot be turned into text (the call then fails on that). */
function safeRedactArguments(args: Record<string, unknown>): Record<string, string> {
  try {
    return redactArguments(args);
  } catch {
    return {};
  }
}

function redactedHeaders(parts: ToolCallParts): Record<string, string> {
  const headers = redactHeaders(parts.headers);
  for (const name of parts.authHeaders) headers[name] = REDACTED;
  return headers;
}

/**
 * About how much memory a call's recorded request holds until its event is built: its parts' texts, and as much
 * again for the arguments they were made from.
 */
function partsBytes(parts: ToolCallParts): number {
  let bytes = parts.body.length;
  for (const name in parts.arguments) bytes += name.length + (parts.arguments[name] as string).length;
  for (const name in parts.headers) bytes += name.length + (parts.headers[name] as string).length;
  return 2 * bytes;
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
  readonly requestId: string | undefined;
  readonly startedAt: number;
  readonly estimatedBytes: number | undefined;
  translation: TranslationReport | undefined = undefined;
  readonly #args: Record<string, unknown>;
  readonly #tool: ToolReference;
  /** Whether the call got as far as being split into parts: they are split again when the event is built. */
  readonly #split: boolean;
  #started: StartedDetails | undefined = undefined;

  constructor(
    args: Record<string, unknown>,
    tool: ToolReference,
    parts: ToolCallParts | undefined,
    context: CallContext | undefined,
    startedAt: number,
  ) {
    this.toolName = tool.name;
    this.toolType = tool.type;
    this.namespace = context?.namespace ?? tool.namespace;
    this.connectionId = context?.connectionId;
    this.principal = context?.principal;
    this.requestId = context?.requestId;
    this.startedAt = startedAt;
    this.estimatedBytes = parts ? partsBytes(parts) : undefined;
    this.#args = args;
    this.#tool = tool;
    this.#split = parts !== undefined;
  }

  get what(): string {
    return toolWhat(this.toolName);
  }

  /**
   * Redacted when an event is built, not for every call: no event is built while none is kept or read. The parts
   * are split again then, rather than kept with the record: a history keeps records of a thousand calls.
   */
  get started(): StartedDetails {
    if (this.#started === undefined) {
      const parts = this.#split ? toolCallParts(this.#args, this.#tool) : undefined;
      this.#started = {
        arguments: safeRedactArguments(this.#args),
        headers: parts ? redactedHeaders(parts) : {},
        body: redactBody(parts?.body ?? "").text,
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

  async function invoke(
    args: Record<string, unknown>,
    tool: ToolReference,
    context: CallContext | undefined,
    secrets: SecretValues,
  ): Promise<ToolResult> {
    const startedAt = clock();
    const what = toolWhat(tool.name);
    const record = (parts?: ToolCallParts): CallRecord =>
      new ToolCallRecord(args, tool, parts, context, startedAt);
    let target: ServiceTarget;
    let parts: ToolCallParts;
    try {
      // Split for every protocol: it checks that the arguments can be sent and finds the secret values to scrub.
      parts = toolCallParts(args, tool);
      for (const value of parts.secretValues) secrets.add(value);
      validateRequiredArguments(args, tool);
      target =
        resolveServiceNow(deps.resolver, tool.type, "tool-invoker") ??
        (await resolveToolService(deps.resolver, tool.type));
    } catch (thrown) {
      // Never dispatched: no transport (and so no interceptor) saw the call, the bridge records it.
      const error = TrestleError.from(thrown);
      recordUndispatched(record(), error, eventOptions, secrets);
      const message = secrets.scrub(describeFailure(error, { what, operation: "tool invocation" }));
      if (context?.failures === "reject")
        throw new TrestleError(message, error.code, { metadata: error.metadata });
      return textResult([message], true);
    }
    const options = callOptionsFor(context);
    // One bag per call: the call events and the scrubbing interceptors read what only the bridge knows.
    const callRecord = record(parts);
    options.contextValues = (options.contextValues ?? createContextValues())
      .set(callRecordKey, callRecord)
      .set(callSecretsKey, secrets)
      .set(
        translationRecorderKey,
        translationFor(callRecord, context?.client, target, context?.translationNotes),
      )
      .set(toolCallPartsKey, { arguments: args, tool, parts });
    const call: ToolCall = { tool, arguments: args as JsonObject };
    if (context?.input) call.input = context.input;
    try {
      return await deps.transports.transportFor(target).callTool(call, target, options);
    } catch (thrown) {
      // A refusal for what the client cannot do is the front's to answer, in its client's protocol.
      if (requiredClientCapabilities(thrown)) throw thrown;
      // The bridge words this message around the error's text (already scrubbed by the `scrubSecrets` interceptor
      // where the composition root installed it); a failure path, so one more scrub is cheap insurance.
      const error = TrestleError.from(thrown);
      const message = secrets.scrub(describeFailure(error, { target, what, operation: "tool invocation" }));
      if (context?.failures === "reject")
        throw new TrestleError(message, error.code, { metadata: error.metadata });
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
        if (requiredClientCapabilities(thrown) || context?.failures === "reject") throw thrown;
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
