import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ownSignalFetch } from "./upstream-http.js";

/** A stand-in for undici's fetch: like its `Request`, it leaves an abort listener on the signal it is given. */
function listeningFetch(seen: AbortSignal[]): typeof fetch {
  return async (_input, init) => {
    const signal = init?.signal as AbortSignal;
    seen.push(signal);
    signal.addEventListener("abort", () => undefined);
    return new Response("{}");
  };
}

describe("ownSignalFetch", () => {
  it("leaves no listener on the session's signal however many requests share it", async () => {
    const session = new AbortController();
    const seen: AbortSignal[] = [];
    const send = ownSignalFetch(listeningFetch(seen));
    for (let i = 0; i < 2_000; i++) await send("http://upstream.invalid/mcp", { signal: session.signal });
    expect(getEventListeners(session.signal, "abort")).toHaveLength(0);
    expect(seen.every((signal) => signal !== session.signal)).toBe(true);
  });

  it("aborts every request in flight when the session's signal aborts", async () => {
    const session = new AbortController();
    const seen: AbortSignal[] = [];
    const send = ownSignalFetch(listeningFetch(seen));
    await send("http://upstream.invalid/mcp", { signal: session.signal });
    await send("http://upstream.invalid/mcp", { signal: session.signal });
    session.abort(new Error("closed"));
    expect(seen.map((signal) => signal.aborted)).toEqual([true, true]);
  });

  it("passes a request without a signal on as it is", async () => {
    const seen: (AbortSignal | null | undefined)[] = [];
    const send = ownSignalFetch(async (_input, init) => {
      seen.push(init?.signal);
      return new Response("{}");
    });
    await send("http://upstream.invalid/mcp", { method: "POST" });
    expect(seen).toEqual([undefined]);
  });
});
