import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { createSpawnLimit } from "./spawn-limit.js";

const never = new AbortController().signal;

describe("createSpawnLimit", () => {
  it("grants maxProcesses slots per target at once, the next ones in order as slots come back", async () => {
    const limit = createSpawnLimit({ maxProcesses: 2, maxQueued: 2 });
    const first = await limit.acquire("a", "'node'", never);
    await limit.acquire("a", "'node'", never);
    // Another target has slots of its own.
    await limit.acquire("b", "'node'", never);
    const order: string[] = [];
    const third = limit.acquire("a", "'node'", never).then((release) => {
      order.push("third");
      return release;
    });
    const fourth = limit.acquire("a", "'node'", never).then(() => order.push("fourth"));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    first();
    first(); // a second release of the same slot changes nothing
    (await third)();
    await fourth;
    expect(order).toEqual(["third", "fourth"]);
  });

  it("refuses a call at once when the queue is full", async () => {
    const limit = createSpawnLimit({ maxProcesses: 1, maxQueued: 1 });
    await limit.acquire("a", "'node'", never);
    void limit.acquire("a", "'node'", never);
    const refused = await limit.acquire("a", "'uvx'", never).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TrestleError);
    expect((refused as TrestleError).code).toBe(Code.ResourceExhausted);
    expect((refused as TrestleError).rawMessage).toBe(
      "The MCP server 'uvx' already runs 1 per-call processes for this forward and 1 calls are waiting for one; try again later",
    );
  });

  it("lets a waiting call go when its signal aborts, and gives its place to the next", async () => {
    const limit = createSpawnLimit({ maxProcesses: 1, maxQueued: 2 });
    const release = await limit.acquire("a", "'node'", never);
    const controller = new AbortController();
    const gone = limit.acquire("a", "'node'", controller.signal);
    const next = limit.acquire("a", "'node'", never);
    controller.abort(new Error("deadline"));
    await expect(gone).rejects.toThrow("deadline");
    release();
    await expect(next).resolves.toBeTypeOf("function");
  });

  it("defaults to 8 processes and 32 waiting calls", async () => {
    const limit = createSpawnLimit();
    for (let i = 0; i < 8; i++) await limit.acquire("a", "'node'", never);
    for (let i = 0; i < 32; i++) void limit.acquire("a", "'node'", never);
    const refused = await limit.acquire("a", "'node'", never).catch((e: TrestleError) => e);
    expect((refused as TrestleError).code).toBe(Code.ResourceExhausted);
  });
});
