import { describe, expect, it } from "vitest";
import { stopOnSignals } from "../src/index.js";

describe("stopOnSignals", () => {
  // SIGUSR2 stands in for SIGTERM: emitting a real SIGTERM in the test worker could reach the runner's own handlers.
  const signal = "SIGUSR2" as const;

  it("runs stop once on the first signal, then leaves the signal to its default handling", async () => {
    expect(process.listenerCount(signal)).toBe(0);
    let stops = 0;
    let resolveStopped: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      resolveStopped = resolve;
    });
    stopOnSignals(
      async () => {
        stops++;
        resolveStopped();
      },
      { signals: [signal] },
    );
    expect(process.listenerCount(signal)).toBe(1);
    process.emit(signal, signal);
    await stopped;
    expect(stops).toBe(1);
    expect(process.listenerCount(signal)).toBe(0);
  });

  it("returns a function that removes the handlers without stopping", () => {
    let stops = 0;
    const remove = stopOnSignals(
      () => {
        stops++;
      },
      { signals: [signal, "SIGUSR1"] },
    );
    const before = process.listenerCount("SIGUSR1");
    remove();
    expect(process.listenerCount(signal)).toBe(0);
    expect(process.listenerCount("SIGUSR1")).toBe(before - 1);
    expect(stops).toBe(0);
  });

  it("marks the process as failed when stop throws", async () => {
    const previous = process.exitCode;
    let resolveTried: () => void = () => undefined;
    const tried = new Promise<void>((resolve) => {
      resolveTried = resolve;
    });
    stopOnSignals(
      () => {
        resolveTried();
        throw new Error("deregistration failed");
      },
      { signals: [signal] },
    );
    process.emit(signal, signal);
    await tried;
    await new Promise((resolve) => setImmediate(resolve));
    expect(process.exitCode).toBe(1);
    process.exitCode = previous;
  });
});
