import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isUriTemplate, matchUriTemplate } from "@trestle/bridge";
import type { InputAnswers, PromptReference } from "@trestle/core";
import { asProtocolError } from "./call-outcome.js";
import {
  inputRequiredResult,
  readInputAnswers,
  relayInputToSession,
  requireInputCapabilities,
} from "./input-relay.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { type McpRequestHandler, onRequest } from "./method-table.js";
import type { NamespaceScope } from "./namespace-scope.js";
import { ProtocolError } from "./protocol-error.js";
import { pagesOf } from "./resource-methods.js";
import { encodeCompleteResult, encodePromptResult } from "./wire/results.js";

/**
 * Adds `prompts/list`, `prompts/get` and `completion/complete` to `table`: the prompts the call service lets the
 * request's principal see, expanded through it (a forward's by its upstream, whose questions are relayed in each
 * era's way).
 */
export function registerPromptMethods(table: Map<string, McpRequestHandler>, scope: NamespaceScope): void {
  const calls = scope.backend.calls;
  const { namespace } = scope;

  const promptPages = pagesOf("prompts", scope.settings.pageSize, (all: readonly PromptReference[]) =>
    all.map((p) => ({
      name: p.name,
      ...(p.description ? { description: p.description } : {}),
      ...(p.arguments ? { arguments: p.arguments } : {}),
    })),
  );
  onRequest(table, "prompts/list", ListPromptsRequestSchema, (request, extra) => {
    scope.requireCapability("prompts", "prompts/list");
    return promptPages(calls.listPrompts(extra.origin)).page(
      request.params?.cursor,
      scope.cacheHints(extra.origin),
    );
  });

  // Argument values are not known to the catalog: completion answers with the values already seen in the
  // catalog for resource template variables, and with none for prompt arguments.
  onRequest(table, "completion/complete", CompleteRequestSchema, (request, extra) => {
    scope.requireCapability("completions", "completion/complete");
    const { ref, argument } = request.params;
    let values: string[] = [];
    if (ref.type === "ref/prompt") {
      if (!calls.findPrompt(extra.origin, ref.name))
        throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    } else if (ref.type === "ref/resource") {
      const resources = calls.listResources(extra.origin);
      const template = resources.find((r) => r.location === ref.uri && isUriTemplate(r.location));
      if (!template)
        throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      const seen = new Set<string>();
      for (const r of resources) {
        if (isUriTemplate(r.location)) continue;
        const value = matchUriTemplate(template.location, r.location)?.[argument.name];
        if (value?.startsWith(argument.value)) seen.add(value);
      }
      values = [...seen].sort().slice(0, 100);
    }
    return encodeCompleteResult(
      { completion: { values, total: values.length, hasMore: false } },
      extra.origin.revision,
    ).value;
  });

  onRequest(table, "prompts/get", GetPromptRequestSchema, async (request, extra, raw) => {
    scope.requireCapability("prompts", "prompts/get");
    const { name } = request.params;
    const origin = extra.origin;
    const prompt = calls.findPrompt(origin, name);
    if (!prompt) throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const args = request.params.arguments ?? {};
    const binding = {
      method: "prompts/get",
      name,
      namespace,
      principal: origin.principal.id,
      arguments: args,
    };
    const input = readInputAnswers(raw.params, scope.requestStates, binding);
    const get = (answers?: InputAnswers) =>
      calls
        .getPrompt(origin, prompt, args, {
          signal: extra.cancellation.signal,
          ...(answers ? { input: answers } : {}),
        })
        .catch((error: unknown) => {
          const mapped = asProtocolError(error, `prompt '${name}'`);
          if (mapped instanceof ProtocolError) throw mapped;
          const message = (error as { rawMessage?: string }).rawMessage ?? (error as Error).message;
          throw new ProtocolError(
            JsonRpcErrorCode.InternalError,
            `Getting prompt '${prompt.name}' failed: ${message}`,
          );
        });
    let result = await get(input);
    if (result.inputRequired && origin.modern) {
      requireInputCapabilities(Object.values(result.inputRequired.requests), origin.modern.capabilities);
      return inputRequiredResult(result.inputRequired, scope.requestStates, binding);
    }
    if (result.inputRequired && extra.sendRequest) {
      result = await relayInputToSession(
        result,
        get,
        extra.sendRequest,
        origin.session?.clientCapabilities ?? {},
        `Prompt '${name}'`,
      );
    }
    if (result.inputRequired) {
      throw new ProtocolError(
        JsonRpcErrorCode.InternalError,
        `Prompt '${name}' needs input from the client, which this connection cannot relay`,
      );
    }
    return encodePromptResult(result, origin.revision).value;
  });
}
