import {
  Code,
  type ContentBlock,
  categorizeError,
  type JsonObject,
  REDACTED,
  redactArguments,
  redactBody,
  redactHeaders,
  redactSecretsUri,
  type ServiceTarget,
  type ToolCallParts,
  type ToolPayload,
  type ToolReference,
  type ToolResult,
  TrestleError,
  toolCallParts,
  validateRequiredArguments,
} from "@trestle/core";
import type { BridgeDependencies, CallContext } from "./call-context.js";
import { callOptionsFor } from "./call-context.js";
import { type CallRecording, createCallRecorder } from "./call-recorder.js";
import { describeFailure } from "./failure.js";
import { applyToolProvisioning, provisionOnService } from "./provisioning.js";
import { addSecretMetadata, createSecretValues, type SecretValues } from "./secret-values.js";
import { resolveToolService } from "./service-resolution.js";

/** Routes `tools/call` to capability services and provisions tools on them. */
export interface InvokerBridge {
  /**
   * Calls `tool` with `args` on the service that executes tools of its type, and records the call as a
   * STARTED event followed by one COMPLETED or FAILED event.
   *
   * Never rejects: every failure (missing arguments, no service, service down, an error the service reported,
   * cancellation) comes back as an `isError: true` result whose text a user can act on. Secret values sent in
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

/** A block as an event records it: text with secret-named JSON fields redacted, any other block as JSON. */
function eventText(block: ContentBlock): string {
  return block.type === "text" ? redactBody(block.text).text : JSON.stringify(block);
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
 * Creates the {@link InvokerBridge}.
 *
 * @example
 * ```ts
 * const bridge = createInvokerBridge({ resolver, transports, events: hub });
 * const result = await bridge.execute({ city: "Oslo" }, tool, { requestId: "7", signal });
 * ```
 */
export function createInvokerBridge(deps: BridgeDependencies): InvokerBridge {
  const record = createCallRecorder(deps);

  async function invoke(
    args: Record<string, unknown>,
    tool: ToolReference,
    context: CallContext | undefined,
    recording: CallRecording,
    secrets: SecretValues,
  ): Promise<ToolResult> {
    let target: ServiceTarget | undefined;
    let started = false;
    const startOnce = (parts?: ToolCallParts) => {
      if (started) return;
      started = true;
      recording.started({
        arguments: safeRedactArguments(args),
        headers: parts ? redactedHeaders(parts) : {},
        body: redactBody(parts?.body ?? "").text,
        configurationURI: tool.configurationURI ?? "",
        secretsURI: redactSecretsUri(tool.secretsURI),
      });
    };
    try {
      // Split for every protocol: it checks that the arguments can be sent and finds the secret values to scrub.
      const parts = toolCallParts(args, tool);
      for (const value of parts.secretValues) secrets.add(value);
      validateRequiredArguments(args, tool);
      target = await resolveToolService(deps.resolver, tool.type);
      recording.setTarget(target);
      const transport = deps.transports.transportFor(target);
      startOnce(parts);
      const result = secrets.scrubDeep(
        await transport.callTool({ tool, arguments: args as JsonObject }, target, callOptionsFor(context)),
      );
      // The client gets the result as it is; the event keeps no secret-named field of it (a login tool's
      // `{"access_token": …}`), as it keeps none of the request's body.
      const recorded = result.content.map(eventText);
      if (result.isError) {
        const message = recorded.join("\n");
        recording.end({
          ok: false,
          content: recorded,
          errorCategory: "execution_error",
          errorMessage: message,
        });
      } else {
        recording.end({ ok: true, content: recorded });
      }
      return result;
    } catch (thrown) {
      startOnce();
      const error = TrestleError.from(thrown);
      const message = secrets.scrub(
        describeFailure(error, {
          ...(target ? { target } : {}),
          what: `tool '${tool.name}'`,
          operation: "tool invocation",
        }),
      );
      recording.end({
        ok: false,
        content: [message],
        errorCategory: categorizeError(error),
        errorMessage: message,
      });
      return textResult([message], true);
    }
  }

  return {
    async execute(args, tool, context) {
      const secrets = createSecretValues();
      addSecretMetadata(secrets, context?.metadata);
      const recording = record({
        toolName: tool.name,
        toolType: tool.type,
        kind: "tool",
        namespace: tool.namespace,
        context,
        secrets,
      });
      try {
        return await invoke(args ?? {}, tool, context, recording, secrets);
      } catch (thrown) {
        // Only a defect can get here (invoke catches everything it awaits); keep the promise of never rejecting.
        const message = secrets.scrub(TrestleError.from(thrown, Code.Internal).rawMessage);
        return textResult(
          [`Internal error in the router while calling tool '${tool.name}': ${message}`],
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
        what: `tool '${tool.name}'`,
        configurationData: payload.configurationData,
        secretsData: payload.secretsData,
        context,
      });
      return applyToolProvisioning(tool, reference);
    },
  };
}
