import { describe, expect, it } from "vitest";
import { untilAborted } from "../src/until-aborted.js";

describe("untilAborted", () => {
  it("rejects with the signal's reason when it aborts first", async () => {
    const controller = new AbortController();
    const pending = untilAborted(new Promise<never>(() => undefined), controller.signal);
    controller.abort(new Error("gone"));
    await expect(pending).rejects.toThrow("gone");
  });

  it("resolves with the promise's value when the signal stays quiet", async () => {
    await expect(untilAborted(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
  });

  it("leaves no unhandled rejection behind when the signal was already aborted", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const controller = new AbortController();
      controller.abort(new Error("over"));
      let rejectLater: (error: Error) => void = () => undefined;
      const later = new Promise<never>((_, reject) => {
        rejectLater = reject;
      });
      await expect(untilAborted(later, controller.signal)).rejects.toThrow("over");
      rejectLater(new Error("the handler failed after the call ended"));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
