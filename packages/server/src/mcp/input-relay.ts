import type { InputAnswers, InputRequest, InputRequired, InputResponse, JsonObject } from "@trestle/core";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ModernErrorCode } from "./protocol-era.js";
import { ProtocolError } from "./protocol-error.js";
import { argumentsDigest, type RequestStateSealer } from "./request-state.js";

/**
 * The request a sealed state belongs to: its method, tool or prompt, namespace, principal and arguments. A state
 * is sealed with it and accepted back only with the same request, from the same principal.
 */
export interface RequestBinding {
  method: string;
  name: string;
  namespace: string;
  principal: string;
  /** The request's arguments; the state keeps only their digest. */
  arguments: unknown;
}

/** The MCP method that asks a client for each kind of input. */
export const INPUT_METHOD: Record<InputRequest["kind"], string> = {
  elicitation: "elicitation/create",
  sampling: "sampling/createMessage",
  roots: "roots/list",
};

/** The client capability each kind of input needs. */
const INPUT_CAPABILITY: Record<InputRequest["kind"], string> = {
  elicitation: "elicitation",
  sampling: "sampling",
  roots: "roots",
};

/** Most rounds of input one request may go through with a session's client before it is given up. */
export const MAX_INPUT_ROUNDS = 16;

/**
 * Refuses input a client did not declare it can give (-32021, `requiredCapabilities` naming what is missing), as
 * MCP says a server must not rely on an undeclared capability.
 */
export function requireInputCapabilities(
  requests: readonly InputRequest[],
  declared: Readonly<Record<string, unknown>>,
): void {
  const missing: Record<string, JsonObject> = {};
  for (const request of requests) {
    const capability = INPUT_CAPABILITY[request.kind];
    if (declared[capability] === undefined) missing[capability] = {};
  }
  const names = Object.keys(missing);
  if (names.length === 0) return;
  throw new ProtocolError(
    ModernErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: the backend asks for ${names.join(" and ")}, which the client did not declare`,
    { requiredCapabilities: missing },
  );
}

/** A 2026-07-28 `input_required` result: what the client is asked, keyed, and the state to send back. */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests: Record<string, { method: string; params: JsonObject }>;
  requestState: string;
}

/** An `input_required` result (2026-07-28) for what the backend asks, with the router's sealed state. */
export function inputRequiredResult(
  inputRequired: InputRequired,
  sealer: RequestStateSealer,
  binding: RequestBinding,
  parked?: string,
): InputRequiredResult {
  const inputRequests: Record<string, { method: string; params: JsonObject }> = {};
  for (const [key, request] of Object.entries(inputRequired.requests)) {
    inputRequests[key] = { method: INPUT_METHOD[request.kind], params: request.params };
  }
  let requestState: string;
  try {
    requestState = sealer.seal({
      method: binding.method,
      name: binding.name,
      namespace: binding.namespace,
      principal: binding.principal,
      argumentsDigest: argumentsDigest(binding.arguments),
      ...(parked !== undefined ? { parked } : {}),
      ...(inputRequired.state !== undefined ? { backendState: inputRequired.state } : {}),
    });
  } catch (error) {
    throw new ProtocolError(
      JsonRpcErrorCode.InternalError,
      `Cannot ask for input: ${(error as Error).message}`,
    );
  }
  return { resultType: "input_required", inputRequests, requestState };
}

/**
 * Reads a repeated request's answers: `inputResponses` as the client gave them, and the backend's state out of
 * the router's sealed `requestState`. `undefined` when the request carries neither (a first round).
 *
 * @throws ProtocolError -32602 when the state was altered, expired, or belongs to another request or principal,
 * or when `inputResponses` is not an object of objects.
 */
export function readInputAnswers(
  params: unknown,
  sealer: RequestStateSealer,
  expected: RequestBinding,
): (InputAnswers & { parked?: string }) | undefined {
  const p = (params ?? {}) as { inputResponses?: unknown; requestState?: unknown };
  if (p.inputResponses === undefined && p.requestState === undefined) return undefined;
  const responses = p.inputResponses === undefined ? {} : p.inputResponses;
  if (
    typeof responses !== "object" ||
    responses === null ||
    Array.isArray(responses) ||
    Object.values(responses).some((r) => typeof r !== "object" || r === null || Array.isArray(r))
  ) {
    throw new ProtocolError(
      JsonRpcErrorCode.InvalidParams,
      "Invalid params: inputResponses must be an object whose values are the input results",
    );
  }
  const answers: InputAnswers & { parked?: string } = { responses: responses as Record<string, JsonObject> };
  if (p.requestState === undefined) return answers;
  if (typeof p.requestState !== "string") {
    throw new ProtocolError(JsonRpcErrorCode.InvalidParams, "Invalid params: requestState must be a string");
  }
  const opened = sealer.open(p.requestState);
  if ("refused" in opened) {
    throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `Invalid requestState: ${opened.refused}`);
  }
  if (
    opened.method !== expected.method ||
    opened.name !== expected.name ||
    opened.namespace !== expected.namespace ||
    opened.principal !== expected.principal ||
    opened.argumentsDigest !== argumentsDigest(expected.arguments)
  ) {
    throw new ProtocolError(
      JsonRpcErrorCode.InvalidParams,
      "Invalid requestState: it was issued for another request; send it only with the request that received it",
    );
  }
  if (opened.backendState !== undefined) answers.state = opened.backendState;
  if (opened.parked !== undefined) answers.parked = opened.parked;
  return answers;
}

/** A session client's answer to a server-to-client request, as the neutral {@link InputResponse}. */
export function inputResponseFrom(kind: InputRequest["kind"], answer: unknown): InputResponse {
  const result = (answer ?? {}) as JsonObject;
  if (kind === "elicitation") {
    const action = result.action === "accept" || result.action === "decline" ? result.action : "cancel";
    const content = result.content as JsonObject | undefined;
    return { action, ...(action === "accept" && content ? { result: content } : {}) };
  }
  return { action: "accept", result };
}

/** The answer to put under an `inputResponses` key for a neutral {@link InputResponse} (the method's result). */
export function wireAnswer(kind: InputRequest["kind"], response: InputResponse): JsonObject {
  if (kind === "elicitation") {
    return { action: response.action, ...(response.result ? { content: response.result } : {}) };
  }
  return response.result ?? {};
}

/**
 * Answers a backend's input requests by asking a session's client each question on the request's stream, and
 * repeats the request with the answers until the backend finishes (at most {@link MAX_INPUT_ROUNDS} rounds).
 *
 * @throws ProtocolError -32021 for input the client did not declare it can give; -32603 past the round limit.
 */
export async function relayInputToSession<R extends { inputRequired?: InputRequired }>(
  first: R,
  again: (answers: InputAnswers) => Promise<R>,
  ask: (request: { method: string; params?: Record<string, unknown> }) => Promise<unknown>,
  declared: Readonly<Record<string, unknown>>,
  what: string,
): Promise<R> {
  let result = first;
  for (let round = 0; result.inputRequired; round++) {
    if (round >= MAX_INPUT_ROUNDS) {
      throw new ProtocolError(
        JsonRpcErrorCode.InternalError,
        `${what} asked for input more than ${MAX_INPUT_ROUNDS} times; the request was given up`,
      );
    }
    const { requests, state } = result.inputRequired;
    requireInputCapabilities(Object.values(requests), declared);
    const responses: Record<string, JsonObject> = {};
    for (const [key, request] of Object.entries(requests)) {
      responses[key] = (await ask({
        method: INPUT_METHOD[request.kind],
        params: request.params,
      })) as JsonObject;
    }
    result = await again({ responses, ...(state !== undefined ? { state } : {}) });
  }
  return result;
}
