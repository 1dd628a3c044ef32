import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { installProcessSafetyNet } from "../src/process-safety.js";

function harness(stop: (code: number) => Promise<void> | void = () => undefined) {
  const target = new EventEmitter();
  const logged: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const exits: number[] = [];
  const stops: number[] = [];
  const remove = installProcessSafetyNet({
    target,
    exitDeadlineMs: 50,
    exit: (code) => void exits.push(code),
    stop: (code) => {
      stops.push(code);
      return stop(code);
    },
    logger: {
      error: (fields, message) => void logged.push({ level: "error", fields, message }),
      fatal: (fields, message) => void logged.push({ level: "fatal", fields, message }),
    },
  });
  return { target, logged, exits, stops, remove };
}

describe("process safety net", () => {
  it("logs an unhandled rejection and keeps serving: no stop, no exit", async () => {
    const { target, logged, exits, stops } = harness();
    const reason = new Error("a forgotten promise failed");
    target.emit("unhandledRejection", reason, Promise.resolve());
    target.emit("unhandledRejection", "a string reason", Promise.resolve());
    await new Promise((r) => setTimeout(r, 80));
    expect(logged.map((l) => l.level)).toEqual(["error", "error"]);
    expect(logged[0]?.fields.err).toBe(reason);
    expect(logged[0]?.message).toContain("keeps serving");
    expect(stops).toEqual([]);
    expect(exits).toEqual([]);
  });

  it("stops gracefully with exit code 1 on an uncaught exception, after logging it", async () => {
    const { target, logged, stops } = harness();
    target.emit("uncaughtException", new Error("boom"), "uncaughtException");
    await new Promise((r) => setTimeout(r, 10));
    expect(logged[0]).toMatchObject({ level: "fatal", fields: { origin: "uncaughtException" } });
    expect(stops).toEqual([1]);
  });

  it("exits at the deadline when stopping hangs, and at once on a second exception", async () => {
    const hanging = harness(() => new Promise<void>(() => undefined));
    hanging.target.emit("uncaughtException", new Error("boom"));
    await new Promise((r) => setTimeout(r, 100));
    expect(hanging.exits).toEqual([1]);

    const twice = harness(() => new Promise<void>(() => undefined));
    twice.target.emit("uncaughtException", new Error("first"));
    twice.target.emit("uncaughtException", new Error("second"));
    expect(twice.exits).toEqual([1]);
    await new Promise((r) => setTimeout(r, 10));
    expect(twice.stops).toEqual([1]);
  });

  it("is removed by the function it returns", () => {
    const { target, remove } = harness();
    remove();
    expect(target.listenerCount("unhandledRejection")).toBe(0);
    expect(target.listenerCount("uncaughtException")).toBe(0);
  });
});
