import { afterEach, describe, expect, it } from "vitest";
import { raceAbort } from "./call-scope.js";
import { Code, TrestleError } from "./error.js";

describe("raceAbort", () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  afterEach(() => {
    process.off("unhandledRejection", onUnhandled);
    unhandled.length = 0;
  });

  it("rejects at once with Canceled when the signal is already aborted, and the abandoned promise's later failure is handled", async () => {
    process.on("unhandledRejection", onUnhandled);
    let fail: (error: Error) => void = () => undefined;
    const abandoned = new Promise<string>((_, reject) => {
      fail = reject;
    });
    const error = await raceAbort(abandoned, AbortSignal.abort()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.Canceled);
    fail(new Error("the engine stopped"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
  });

  it("passes the promise's value through while the signal stays quiet", async () => {
    await expect(raceAbort(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
  });

  it("rejects with the signal's reason as soon as it aborts", async () => {
    const controller = new AbortController();
    const pending = raceAbort(new Promise<never>(() => undefined), controller.signal);
    controller.abort(new TrestleError("gone", Code.DeadlineExceeded));
    await expect(pending).rejects.toMatchObject({ code: Code.DeadlineExceeded });
  });
});
