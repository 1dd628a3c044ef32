import type { InputAnswers, InputRequired } from "@trestle/core";
import { describe, expect, it } from "vitest";
import {
  INPUT_METHOD,
  inputRequiredResult,
  inputResponseFrom,
  MAX_INPUT_ROUNDS,
  readInputAnswers,
  relayInputToSession,
  requireInputCapabilities,
  wireAnswer,
} from "../src/mcp/input-relay.js";
import { ProtocolError } from "../src/mcp/protocol-error.js";
import { argumentsDigest, createRequestStateSealer } from "../src/mcp/request-state.js";

const sealer = createRequestStateSealer(Buffer.alloc(32, 7));
/** The request being answered. */
const binding = {
  method: "tools/call",
  name: "book",
  namespace: "travel",
  principal: "alice",
  arguments: { from: "OSL", to: "BGO" },
};
/** What the router sealed for it. */
const claims = {
  method: "tools/call",
  name: "book",
  namespace: "travel",
  principal: "alice",
  // The same arguments, keys in another order: the digest is of their canonical JSON.
  argumentsDigest: argumentsDigest({ to: "BGO", from: "OSL" }),
};

/** The ProtocolError `fn` throws (fails the test when it throws nothing or something else). */
function protocolError(fn: () => unknown): ProtocolError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error("expected a ProtocolError, nothing was thrown");
}

async function rejection(promise: Promise<unknown>): Promise<ProtocolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error("expected a ProtocolError, the promise resolved");
}

describe("readInputAnswers", () => {
  it("is undefined for a first round (neither inputResponses nor requestState)", () => {
    expect(readInputAnswers({ name: "book", arguments: {} }, sealer, binding)).toBeUndefined();
    expect(readInputAnswers(undefined, sealer, binding)).toBeUndefined();
  });

  it("reads the answers and the backend's state out of a state sealed for the same request", () => {
    const requestState = sealer.seal({ ...claims, backendState: "step-2" });
    const answers = readInputAnswers(
      {
        name: "book",
        inputResponses: { seat: { action: "accept", content: { seat: "12A" } } },
        requestState,
      },
      sealer,
      binding,
    );
    expect(answers).toEqual({
      responses: { seat: { action: "accept", content: { seat: "12A" } } },
      state: "step-2",
    });
  });

  it("reads the held call out of the state", () => {
    const requestState = sealer.seal({ ...claims, parked: "park-1" });
    expect(readInputAnswers({ inputResponses: {}, requestState }, sealer, binding)).toEqual({
      responses: {},
      parked: "park-1",
    });
  });

  it("reads answers without a state (a backend that sent none)", () => {
    expect(readInputAnswers({ inputResponses: { a: { roots: [] } } }, sealer, binding)).toEqual({
      responses: { a: { roots: [] } },
    });
  });

  it("reads a state without answers as no answers", () => {
    const requestState = sealer.seal({ ...claims, backendState: "s" });
    expect(readInputAnswers({ requestState }, sealer, binding)).toEqual({ responses: {}, state: "s" });
  });

  it.each([
    ["method", { ...claims, method: "prompts/get" }],
    ["name", { ...claims, name: "cancel" }],
    ["namespace", { ...claims, namespace: "other" }],
    ["principal", { ...claims, principal: "mallory" }],
    ["set of arguments", { ...claims, argumentsDigest: argumentsDigest({ from: "OSL", to: "LHR" }) }],
  ])("refuses a state issued for another %s with -32602", (_what, sealedFor) => {
    const requestState = sealer.seal({ ...sealedFor, backendState: "s" });
    const error = protocolError(() =>
      readInputAnswers({ inputResponses: {}, requestState }, sealer, binding),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      "Invalid requestState: it was issued for another request; send it only with the request that received it",
    );
  });

  it("refuses a tampered state with -32602", () => {
    const requestState = `${sealer.seal({ ...claims, backendState: "s" })}-TAMPERED`;
    const error = protocolError(() =>
      readInputAnswers({ inputResponses: {}, requestState }, sealer, binding),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("Invalid requestState: it was altered or was not issued by this router");
  });

  it("refuses a state sealed with another key with -32602", () => {
    const foreign = createRequestStateSealer(Buffer.alloc(32, 8)).seal(claims);
    const error = protocolError(() =>
      readInputAnswers({ inputResponses: {}, requestState: foreign }, sealer, binding),
    );
    expect(error.code).toBe(-32602);
  });

  it("refuses a requestState that is not a string with -32602", () => {
    const error = protocolError(() =>
      readInputAnswers({ inputResponses: {}, requestState: 42 }, sealer, binding),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("Invalid params: requestState must be a string");
  });

  it.each([
    ["an array", [{ action: "accept" }]],
    ["a string", "accept"],
    ["a number", 1],
    ["an object with a string answer", { a: "yes" }],
    ["an object with a null answer", { a: null }],
    ["an object with an array answer", { a: [] }],
  ])("refuses inputResponses that is %s with -32602", (_what, inputResponses) => {
    const error = protocolError(() =>
      readInputAnswers({ inputResponses, requestState: sealer.seal(claims) }, sealer, binding),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      "Invalid params: inputResponses must be an object whose values are the input results",
    );
  });
});

describe("requireInputCapabilities", () => {
  it("passes when every kind asked for was declared", () => {
    expect(() =>
      requireInputCapabilities(
        [
          { kind: "sampling", params: {} },
          { kind: "elicitation", params: {} },
          { kind: "roots", params: {} },
        ],
        { sampling: {}, elicitation: {}, roots: { listChanged: true } },
      ),
    ).not.toThrow();
    expect(() => requireInputCapabilities([], {})).not.toThrow();
  });

  it("refuses an undeclared capability with -32021 and requiredCapabilities as an object", () => {
    const error = protocolError(() =>
      requireInputCapabilities([{ kind: "sampling", params: { messages: [] } }], { elicitation: {} }),
    );
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    expect(error.message).toContain("sampling");
  });

  it("names every missing capability once", () => {
    const error = protocolError(() =>
      requireInputCapabilities(
        [
          { kind: "elicitation", params: {} },
          { kind: "roots", params: {} },
          { kind: "elicitation", params: {} },
          { kind: "sampling", params: {} },
        ],
        { sampling: {} },
      ),
    );
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: {}, roots: {} } });
  });
});

describe("inputRequiredResult", () => {
  it("keys each request with its method and params, and seals the backend's state with the claims", () => {
    const inputRequired: InputRequired = {
      requests: {
        confirm: {
          kind: "elicitation",
          params: { message: "Book it?", requestedSchema: { type: "object" } },
        },
        summary: { kind: "sampling", params: { messages: [], maxTokens: 10 } },
        where: { kind: "roots", params: {} },
      },
      state: "backend-step-1",
    };
    const result = inputRequiredResult(inputRequired, sealer, binding, "park-9");
    expect(Object.keys(result).sort()).toEqual(["inputRequests", "requestState", "resultType"]);
    expect(result.resultType).toBe("input_required");
    expect(result.inputRequests).toEqual({
      confirm: {
        method: "elicitation/create",
        params: { message: "Book it?", requestedSchema: { type: "object" } },
      },
      summary: { method: "sampling/createMessage", params: { messages: [], maxTokens: 10 } },
      where: { method: "roots/list", params: {} },
    });
    expect(sealer.open(result.requestState as string)).toEqual({
      ...claims,
      backendState: "backend-step-1",
      parked: "park-9",
    });
  });

  it("seals no backend state when the backend gave none", () => {
    const result = inputRequiredResult({ requests: { r: { kind: "roots", params: {} } } }, sealer, binding);
    expect(sealer.open(result.requestState as string)).toEqual(claims);
  });

  it("maps each input kind to its MCP method", () => {
    expect(INPUT_METHOD).toEqual({
      elicitation: "elicitation/create",
      sampling: "sampling/createMessage",
      roots: "roots/list",
    });
  });
});

describe("inputResponseFrom and wireAnswer", () => {
  it("reads an elicitation answer's action and content", () => {
    expect(inputResponseFrom("elicitation", { action: "accept", content: { ok: true } })).toEqual({
      action: "accept",
      result: { ok: true },
    });
    expect(inputResponseFrom("elicitation", { action: "decline", content: { ok: true } })).toEqual({
      action: "decline",
    });
    expect(inputResponseFrom("elicitation", { action: "bogus" })).toEqual({ action: "cancel" });
    expect(inputResponseFrom("elicitation", undefined)).toEqual({ action: "cancel" });
  });

  it("takes a sampling or roots answer as accepted with the method's result", () => {
    expect(inputResponseFrom("roots", { roots: [{ uri: "file:///a" }] })).toEqual({
      action: "accept",
      result: { roots: [{ uri: "file:///a" }] },
    });
    expect(inputResponseFrom("sampling", { role: "assistant" })).toEqual({
      action: "accept",
      result: { role: "assistant" },
    });
  });

  it("turns a neutral answer back into the method's result", () => {
    expect(wireAnswer("elicitation", { action: "accept", result: { a: 1 } })).toEqual({
      action: "accept",
      content: { a: 1 },
    });
    expect(wireAnswer("elicitation", { action: "cancel" })).toEqual({ action: "cancel" });
    expect(wireAnswer("roots", { action: "accept", result: { roots: [] } })).toEqual({ roots: [] });
    expect(wireAnswer("sampling", { action: "accept" })).toEqual({});
  });
});

interface FakeResult {
  text?: string;
  inputRequired?: InputRequired;
}

describe("relayInputToSession", () => {
  it("returns a result that needs no input without asking anything", async () => {
    const asked: unknown[] = [];
    const result = await relayInputToSession<FakeResult>(
      { text: "done" },
      () => Promise.reject(new Error("must not repeat")),
      async (request) => {
        asked.push(request);
        return {};
      },
      {},
      "Tool 't'",
    );
    expect(result).toEqual({ text: "done" });
    expect(asked).toEqual([]);
  });

  it("asks the client each question, then repeats the request with the answers and the backend's state", async () => {
    const asked: { method: string; params?: Record<string, unknown> }[] = [];
    const repeats: InputAnswers[] = [];
    const result = await relayInputToSession<FakeResult>(
      {
        inputRequired: {
          requests: {
            confirm: { kind: "elicitation", params: { message: "sure?" } },
            where: { kind: "roots", params: {} },
          },
          state: "s1",
        },
      },
      async (answers) => {
        repeats.push(answers);
        return { text: "booked" };
      },
      async (request) => {
        asked.push(request);
        return request.method === "roots/list"
          ? { roots: [{ uri: "file:///home" }] }
          : { action: "accept", content: { ok: true } };
      },
      { elicitation: {}, roots: {} },
      "Tool 'book'",
    );
    expect(result).toEqual({ text: "booked" });
    expect(asked).toEqual([
      { method: "elicitation/create", params: { message: "sure?" } },
      { method: "roots/list", params: {} },
    ]);
    expect(repeats).toEqual([
      {
        responses: {
          confirm: { action: "accept", content: { ok: true } },
          where: { roots: [{ uri: "file:///home" }] },
        },
        state: "s1",
      },
    ]);
  });

  it("goes through several rounds until the backend finishes", async () => {
    let round = 0;
    const states: (string | undefined)[] = [];
    const result = await relayInputToSession<FakeResult>(
      { inputRequired: { requests: { q: { kind: "sampling", params: {} } }, state: "r0" } },
      async (answers) => {
        states.push(answers.state);
        round++;
        return round < 3
          ? { inputRequired: { requests: { q: { kind: "sampling", params: {} } }, state: `r${round}` } }
          : { text: "finished" };
      },
      async () => ({ role: "assistant", content: { type: "text", text: "hi" } }),
      { sampling: {} },
      "Tool 't'",
    );
    expect(result).toEqual({ text: "finished" });
    expect(states).toEqual(["r0", "r1", "r2"]);
  });

  it("gives up past the round limit with -32603", async () => {
    let repeats = 0;
    const needsMore: FakeResult = { inputRequired: { requests: { q: { kind: "roots", params: {} } } } };
    const error = await rejection(
      relayInputToSession<FakeResult>(
        needsMore,
        async () => {
          repeats++;
          return needsMore;
        },
        async () => ({ roots: [] }),
        { roots: {} },
        "Tool 'loop'",
      ),
    );
    expect(error.code).toBe(-32603);
    expect(error.message).toBe(
      `Tool 'loop' asked for input more than ${MAX_INPUT_ROUNDS} times; the request was given up`,
    );
    expect(repeats).toBe(MAX_INPUT_ROUNDS);
  });

  it("refuses input the client did not declare (-32021) without asking it", async () => {
    const asked: unknown[] = [];
    const error = await rejection(
      relayInputToSession<FakeResult>(
        { inputRequired: { requests: { q: { kind: "sampling", params: {} } } } },
        async () => ({ text: "never" }),
        async (request) => {
          asked.push(request);
          return {};
        },
        { elicitation: {} },
        "Tool 't'",
      ),
    );
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    expect(asked).toEqual([]);
  });

  it("passes the client's refusal of a question on as the relay's failure", async () => {
    await expect(
      relayInputToSession<FakeResult>(
        { inputRequired: { requests: { q: { kind: "roots", params: {} } } } },
        async () => ({ text: "never" }),
        async () => {
          throw { code: -32601, message: "roots not supported" };
        },
        { roots: {} },
        "Tool 't'",
      ),
    ).rejects.toEqual({ code: -32601, message: "roots not supported" });
  });
});
