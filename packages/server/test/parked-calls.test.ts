import type { InputRequest, InputResponse } from "@trestle/core";
import { afterEach, describe, expect, it } from "vitest";
import { type CallTurn, createParkedCalls, type ParkedCalls } from "../src/mcp/parked-calls.js";

const opened: ParkedCalls[] = [];
afterEach(() => {
  for (const calls of opened.splice(0)) calls.close();
});

function parkedCalls(options: { holdMs?: number; maxHeld?: number } = {}): ParkedCalls {
  const calls = createParkedCalls({ holdMs: options.holdMs ?? 60_000, maxHeld: options.maxHeld ?? 100 });
  opened.push(calls);
  return calls;
}

type Ask = (input: InputRequest) => Promise<InputResponse>;

/** The principal whose request starts the calls. */
const OWNER = "alice";

const confirm: InputRequest = { kind: "elicitation", params: { message: "Book it?" } };
const roots: InputRequest = { kind: "roots", params: {} };
const sample: InputRequest = { kind: "sampling", params: { messages: [], maxTokens: 5 } };

/** The questions of a turn that asks, and its park (fails the test for a turn that ended). */
function asks<R>(turn: CallTurn<R>): { requests: Record<string, InputRequest>; park: string } {
  if (!("asks" in turn)) throw new Error(`expected questions, the call ended with ${JSON.stringify(turn)}`);
  return { requests: turn.asks.requests, park: turn.park };
}

/** Resolves when `signal` aborts, with its reason. */
function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

/** A promise that rejects with the signal's reason when it aborts and otherwise never settles. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

describe("parked calls", () => {
  it("lets a call that asks nothing run longer than the hold time", async () => {
    const calls = parkedCalls({ holdMs: 50 });
    const turn = await calls.start(OWNER, async (_ask, signal) => {
      await sleep(200, signal);
      return "ok";
    });
    expect(turn).toEqual({ done: "ok" });
  });

  it("counts the hold time only while the client owes an answer, not after it answered", async () => {
    const calls = parkedCalls({ holdMs: 150 });
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask, signal) => {
        await ask(roots);
        await sleep(400, signal);
        return "finished";
      }),
    );
    await sleep(20);
    const next = await calls.resume(turn.park, OWNER, { responses: { "input-1": { roots: [] } } });
    expect(next).toEqual({ done: "finished" });
  });

  it("resolves with the result of a call that asks nothing, and holds nothing", async () => {
    const calls = parkedCalls();
    const turn = await calls.start(OWNER, async () => ({ text: "done" }));
    expect(turn).toEqual({ done: { text: "done" } });
    expect(calls.size).toBe(0);
  });

  it("turns a question into a turn that asks, and continues the call with the answer", async () => {
    const calls = parkedCalls();
    const turn = asks(await calls.start(OWNER, async (ask: Ask) => ({ answer: await ask(confirm) })));
    expect(turn.requests).toEqual({ "input-1": confirm });
    expect(turn.park).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls.size).toBe(1);
    const next = await calls.resume(turn.park, OWNER, {
      responses: { "input-1": { action: "accept", content: { ok: true } } },
    });
    expect(next).toEqual({ done: { answer: { action: "accept", result: { ok: true } } } });
    expect(calls.size).toBe(0);
    expect(calls.resume(turn.park, OWNER, { responses: {} })).toBeUndefined();
  });

  it("gives the answer in the neutral shape of its kind", async () => {
    const calls = parkedCalls();
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask) => [await ask(roots), await ask(confirm)] as InputResponse[]),
    );
    expect(turn.requests).toEqual({ "input-1": roots });
    const second = asks(
      await (calls.resume(turn.park, OWNER, {
        responses: { "input-1": { roots: [{ uri: "file:///w" }] } },
      }) as Promise<CallTurn<InputResponse[]>>),
    );
    // The same call, asking its next question under a key of the new turn: the first was used.
    expect(second.park).not.toBe(turn.park);
    expect(second.requests).toEqual({ "input-2": confirm });
    const done = await calls.resume(second.park, OWNER, { responses: { "input-2": { action: "decline" } } });
    expect(done).toEqual({
      done: [{ action: "accept", result: { roots: [{ uri: "file:///w" }] } }, { action: "decline" }],
    });
  });

  it("sends questions asked together in one turn", async () => {
    const calls = parkedCalls();
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask) => {
        const [a, b, c] = await Promise.all([ask(confirm), ask(roots), ask(sample)]);
        return { a, b, c };
      }),
    );
    expect(turn.requests).toEqual({ "input-1": confirm, "input-2": roots, "input-3": sample });
    const done = await calls.resume(turn.park, OWNER, {
      responses: {
        "input-1": { action: "accept", content: { ok: true } },
        "input-2": { roots: [] },
        "input-3": { role: "assistant", content: { type: "text", text: "hi" } },
      },
    });
    expect(done).toEqual({
      done: {
        a: { action: "accept", result: { ok: true } },
        b: { action: "accept", result: { roots: [] } },
        c: { action: "accept", result: { role: "assistant", content: { type: "text", text: "hi" } } },
      },
    });
  });

  it("asks again a question left without an answer, and ignores answers to keys it never asked", async () => {
    const calls = parkedCalls();
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask) => {
        const [a, b] = await Promise.all([ask(confirm), ask(roots)]);
        return { a, b };
      }),
    );
    expect(Object.keys(turn.requests)).toEqual(["input-1", "input-2"]);
    const again = asks(
      await (calls.resume(turn.park, OWNER, {
        responses: { "input-1": { action: "accept", content: {} }, "input-9": { roots: [] } },
      }) as Promise<CallTurn<unknown>>),
    );
    expect(again.park).not.toBe(turn.park);
    expect(again.requests).toEqual({ "input-2": roots });
    const done = await calls.resume(again.park, OWNER, { responses: { "input-2": { roots: [] } } });
    expect(done).toEqual({
      done: { a: { action: "accept", result: {} }, b: { action: "accept", result: { roots: [] } } },
    });
  });

  it("asks again every question when the client repeats without answers", async () => {
    const calls = parkedCalls();
    const turn = asks(await calls.start(OWNER, async (ask: Ask) => ask(confirm)));
    const again = asks(
      await (calls.resume(turn.park, OWNER, { responses: {} }) as Promise<CallTurn<unknown>>),
    );
    expect(again.requests).toEqual({ "input-1": confirm });
    expect(calls.size).toBe(1);
  });

  it("answers another principal's key exactly as one it does not hold, and the call waits on for its owner", async () => {
    const calls = parkedCalls();
    const turn = asks(await calls.start(OWNER, async (ask: Ask) => ask(confirm)));
    expect(calls.resume(turn.park, "mallory", { responses: { "input-1": { action: "accept" } } })).toBe(
      calls.resume("00000000-0000-0000-0000-000000000000", "mallory", { responses: {} }),
    );
    const done = await calls.resume(turn.park, OWNER, { responses: { "input-1": { action: "decline" } } });
    expect(done).toEqual({ done: { action: "decline" } });
  });

  it("takes each turn's key once: a second resume with the same key finds nothing", async () => {
    const calls = parkedCalls();
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask, signal) => {
        const first = await ask(confirm);
        await sleep(50, signal);
        return first;
      }),
    );
    const resumed = calls.resume(turn.park, OWNER, { responses: { "input-1": { action: "accept" } } });
    expect(resumed).toBeDefined();
    expect(
      calls.resume(turn.park, OWNER, { responses: { "input-1": { action: "decline" } } }),
    ).toBeUndefined();
    expect(await resumed).toEqual({ done: { action: "accept" } });
  });

  it("answers undefined for a park it does not hold", () => {
    const calls = parkedCalls();
    expect(calls.resume("00000000-0000-0000-0000-000000000000", OWNER, { responses: {} })).toBeUndefined();
  });

  it("rejects with the call's error when the call fails before its first turn", async () => {
    const calls = parkedCalls();
    await expect(
      calls.start(OWNER, async () => {
        throw new Error("backend unavailable");
      }),
    ).rejects.toThrow("backend unavailable");
    expect(calls.size).toBe(0);
  });

  it("rejects the resume with the call's error when the call fails after an answer", async () => {
    const calls = parkedCalls();
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask) => {
        const answer = await ask(confirm);
        if (answer.action !== "accept") throw new Error(`the user said ${answer.action}`);
        return "booked";
      }),
    );
    await expect(
      calls.resume(turn.park, OWNER, { responses: { "input-1": { action: "decline" } } }),
    ).rejects.toThrow("the user said decline");
    expect(calls.size).toBe(0);
  });

  it("aborts the call when its client does not come back within the hold time", async () => {
    const calls = parkedCalls({ holdMs: 50 });
    let callSignal: AbortSignal | undefined;
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask, signal) => {
        callSignal = signal;
        return Promise.race([ask(confirm), untilAborted(signal)]);
      }),
    );
    const reason = await aborted(callSignal as AbortSignal);
    expect((reason as Error).message).toBe("The client did not answer the backend's question in time");
    expect(calls.size).toBe(0);
    expect(
      calls.resume(turn.park, OWNER, { responses: { "input-1": { action: "accept" } } }),
    ).toBeUndefined();
  });

  it("cancels the call when the first request's client goes away before the first turn", async () => {
    const calls = parkedCalls();
    const client = new AbortController();
    let callSignal: AbortSignal | undefined;
    const turn = calls.start(
      OWNER,
      async (_ask: Ask, signal) => {
        callSignal = signal;
        return untilAborted(signal);
      },
      client.signal,
    );
    client.abort(new Error("client closed the connection"));
    await expect(turn).rejects.toThrow("client closed the connection");
    expect(callSignal?.aborted).toBe(true);
    expect(calls.size).toBe(0);
  });

  it("keeps holding the call when the first request's client goes away after the first turn", async () => {
    const calls = parkedCalls();
    const client = new AbortController();
    let callSignal: AbortSignal | undefined;
    const turn = asks(
      await calls.start(
        OWNER,
        async (ask: Ask, signal) => {
          callSignal = signal;
          return ask(confirm);
        },
        client.signal,
      ),
    );
    // The client got its input_required answer and closed that request: the call waits for the repeat.
    client.abort(new Error("first request finished"));
    expect(callSignal?.aborted).toBe(false);
    const done = await calls.resume(turn.park, OWNER, { responses: { "input-1": { action: "cancel" } } });
    expect(done).toEqual({ done: { action: "cancel" } });
  });

  it("cancel aborts a held call with the reason and forgets it", async () => {
    const calls = parkedCalls();
    let callSignal: AbortSignal | undefined;
    const turn = asks(
      await calls.start(OWNER, async (ask: Ask, signal) => {
        callSignal = signal;
        return Promise.race([ask(confirm), untilAborted(signal)]);
      }),
    );
    calls.cancel(turn.park, "the client cannot answer");
    expect(callSignal?.aborted).toBe(true);
    expect((callSignal?.reason as Error | undefined)?.message).toBe("the client cannot answer");
    expect(calls.size).toBe(0);
    expect(calls.resume(turn.park, OWNER, { responses: {} })).toBeUndefined();
    // Cancelling an unknown park does nothing.
    expect(() => calls.cancel(turn.park, "again")).not.toThrow();
  });

  it("answers a question with cancel instead of holding a call past maxHeld", async () => {
    const calls = parkedCalls({ maxHeld: 1 });
    const first = asks(await calls.start(OWNER, async (ask: Ask) => ask(confirm)));
    expect(calls.size).toBe(1);
    // The second call's question is answered at once with cancel; its backend decides what that means.
    const second = await calls.start(OWNER, async (ask: Ask) => ({ got: await ask(roots) }));
    expect(second).toEqual({ done: { got: { action: "cancel" } } });
    expect(calls.size).toBe(1);
    // Once the held call ends, another call may be held.
    await calls.resume(first.park, OWNER, { responses: { "input-1": { action: "accept", content: {} } } });
    expect(calls.size).toBe(0);
    const third = asks(await calls.start(OWNER, async (ask: Ask) => ask(roots)));
    expect(third.requests).toEqual({ "input-1": roots });
    expect(calls.size).toBe(1);
  });

  it("lets a held call ask more questions past maxHeld (the bound counts calls, not questions)", async () => {
    const calls = parkedCalls({ maxHeld: 1 });
    const turn = asks(await calls.start(OWNER, async (ask: Ask) => [await ask(confirm), await ask(roots)]));
    const next = asks(
      await (calls.resume(turn.park, OWNER, {
        responses: { "input-1": { action: "accept", content: {} } },
      }) as Promise<CallTurn<unknown>>),
    );
    expect(next.requests).toEqual({ "input-2": roots });
  });

  it("close cancels every held call", async () => {
    const calls = parkedCalls();
    const signals: AbortSignal[] = [];
    const run = async (ask: Ask, signal: AbortSignal) => {
      signals.push(signal);
      return Promise.race([ask(confirm), untilAborted(signal)]);
    };
    asks(await calls.start(OWNER, run));
    asks(await calls.start(OWNER, run));
    expect(calls.size).toBe(2);
    calls.close();
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    expect((signals[0]?.reason as Error | undefined)?.message).toBe("The router is closing");
    expect(calls.size).toBe(0);
  });
});
