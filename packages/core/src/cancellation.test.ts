import { setFlagsFromString } from "node:v8";
import { describe, expect, it, vi } from "vitest";
import type { CallOptions } from "./call.js";
import { CancellationController, cancellationOf, setCancellation } from "./cancellation.js";

describe("CancellationController", () => {
  it("runs each listener once, in order, with the reason readable, and then aborts a signal made before", () => {
    const cancellation = new CancellationController();
    const signal = cancellation.signal;
    const seen: string[] = [];
    cancellation.onAbort(() => seen.push(`first ${String(cancellation.reason)}`));
    cancellation.onAbort(() => seen.push(`second ${String(signal.aborted)}`));
    signal.addEventListener("abort", () => seen.push(`signal ${String(signal.reason)}`));
    cancellation.abort("gone");
    cancellation.abort("again");
    expect(seen).toEqual(["first gone", "second false", "signal gone"]);
    expect(cancellation.aborted).toBe(true);
    expect(signal.reason).toBe("gone");
  });

  it("makes no signal until one is read, and a signal read after the abort is already aborted with its reason", () => {
    const cancellation = new CancellationController();
    const reason = new Error("the client went away");
    cancellation.abort(reason);
    expect(cancellation.signal.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe(reason);
  });

  it("forgets a listener taken off, the first or a later one, and never calls one added after the abort", () => {
    const cancellation = new CancellationController();
    const first = vi.fn();
    const second = vi.fn();
    const third = vi.fn();
    cancellation.onAbort(first);
    cancellation.onAbort(second);
    cancellation.onAbort(third);
    cancellation.offAbort(first);
    cancellation.offAbort(third);
    cancellation.abort();
    const late = vi.fn();
    cancellation.onAbort(late);
    expect([first.mock.calls.length, second.mock.calls.length, third.mock.calls.length]).toEqual([0, 1, 0]);
    expect(late).not.toHaveBeenCalled();
    expect((cancellation.reason as DOMException).name).toBe("AbortError");
  });

  it("runs the other listeners when one throws, and reports the throw as uncaught", async () => {
    const cancellation = new CancellationController();
    const after = vi.fn();
    cancellation.onAbort(() => {
      throw new Error("listener failed");
    });
    cancellation.onAbort(after);
    const uncaught = new Promise<unknown>((resolve) => process.once("uncaughtException", resolve));
    // Vitest reports an uncaught exception as a failure of the run: take it off the process while this test owns it.
    const vitestHandlers = process.listeners("uncaughtException").slice(0, -1);
    for (const handler of vitestHandlers) process.off("uncaughtException", handler);
    try {
      cancellation.abort();
      expect(after).toHaveBeenCalledOnce();
      expect(await uncaught).toMatchObject({ message: "listener failed" });
    } finally {
      for (const handler of vitestHandlers) process.on("uncaughtException", handler);
    }
  });
});

describe("cancellationOf", () => {
  it("is undefined for a call nobody can cancel", () => {
    expect(cancellationOf(undefined)).toBeUndefined();
    expect(cancellationOf({ timeoutMs: 5 })).toBeUndefined();
  });

  it("follows a caller's signal: its state, its reason and its listeners", () => {
    const controller = new AbortController();
    const cancellation = cancellationOf({ signal: controller.signal });
    const kept = vi.fn();
    const dropped = vi.fn();
    cancellation?.onAbort(kept);
    cancellation?.onAbort(dropped);
    cancellation?.offAbort(dropped);
    expect(cancellation?.aborted).toBe(false);
    controller.abort("stop");
    expect([cancellation?.aborted, cancellation?.reason, cancellation?.signal]).toEqual([
      true,
      "stop",
      controller.signal,
    ]);
    expect([kept.mock.calls.length, dropped.mock.calls.length]).toEqual([1, 0]);
  });

  it("gives the options' own cancellation, and reading it makes no signal", () => {
    const cancellation = new CancellationController();
    const read = vi.spyOn(cancellation, "signal", "get");
    const options = setCancellation({ timeoutMs: 5 }, cancellation);
    expect(cancellationOf(options)).toBe(cancellation);
    expect(read).not.toHaveBeenCalled();
    void options.signal;
    expect(read).toHaveBeenCalledOnce();
  });
});

describe("setCancellation", () => {
  it("gives a transport that reads only `signal` a signal that aborts with the cancellation, spreads included", () => {
    const cancellation = new CancellationController();
    const options = setCancellation({ requestId: "7" }, cancellation);
    const spread: CallOptions = { ...options, timeoutMs: 10 };
    expect(options.signal?.aborted).toBe(false);
    cancellation.abort("stop");
    expect(options.signal?.reason).toBe("stop");
    expect(spread.signal).toBe(options.signal);
    expect(spread.cancellation).toBe(cancellation);
  });

  it("keeps the hidden class of the options objects it is given shared (one accessor function for all)", () => {
    // The point of a cancellation is a call without new hidden classes; a closure per call as the accessor would
    // give every options object a map of its own again.
    setFlagsFromString("--allow-natives-syntax");
    const haveSameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (
      a: object,
      b: object,
    ) => boolean;
    const first = setCancellation({ requestId: "1" }, new CancellationController());
    const second = setCancellation({ requestId: "2" }, new CancellationController());
    expect(haveSameMap(first, second)).toBe(true);
  });
});
