/**
 * A legacy upstream's server-to-client requests (elicitation, sampling, roots) relayed to the router's client
 * through the call's `onInputRequest`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { InputRequest, InputResponse, JsonObject } from "@trestle/core";

/** A JSON-RPC error for an input request the router's client declined or cancelled. */
export function refused(method: string, response: InputResponse): McpError {
  return new McpError(-1, `The client answered ${method} with '${response.action}'`);
}

/**
 * Hands a legacy upstream's server-to-client requests to the `onInputRequest` of the request they belong to and
 * answers with what it says: an elicitation's action (and content when accepted) as it is; a sampling or roots
 * result when accepted, else a JSON-RPC error.
 */
export function relayInputRequests(
  client: Client,
  handlerFor: (
    serverRequestId: string | number,
  ) => ((request: InputRequest) => Promise<InputResponse>) | undefined,
): void {
  const ask = async (method: string, kind: InputRequest["kind"], params: unknown, id: string | number) => {
    const handler = handlerFor(id);
    if (!handler) {
      throw new McpError(
        -32603,
        `The router cannot tell which of its calls ${method} belongs to, or that call cannot answer it`,
      );
    }
    return handler({ kind, params: (params ?? {}) as JsonObject } as InputRequest);
  };
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const response = await ask("elicitation/create", "elicitation", request.params, extra.requestId);
    return {
      action: response.action,
      ...(response.action === "accept" && response.result ? { content: response.result } : {}),
    } as never;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    const response = await ask("sampling/createMessage", "sampling", request.params, extra.requestId);
    if (response.action !== "accept" || !response.result) throw refused("sampling/createMessage", response);
    return response.result as never;
  });
  client.setRequestHandler(ListRootsRequestSchema, async (request, extra) => {
    const response = await ask("roots/list", "roots", request.params, extra.requestId);
    if (response.action !== "accept" || !response.result) throw refused("roots/list", response);
    return response.result as never;
  });
}
