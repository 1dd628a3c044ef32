import { AsyncResource } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { pinTickObjectShape } from "../src/runtime/tick-object-shape.js";

// Stand-ins for `process.nextTick` whose source builds each literal Node has built; only the source is read.
const async_id_symbol = Symbol("async_id_symbol");
const trigger_async_id_symbol = Symbol("trigger_async_id_symbol");
const async_context_frame = Symbol("kAsyncContextFrame");
const AsyncContextFrame = { current: () => undefined };
const queue: object[] = [];

/** Node 20's literal. */
function fourKeyNextTick(callback: () => void, args?: unknown[]) {
  const asyncId = 1;
  const triggerAsyncId = 0;
  const tickObject = {
    [async_id_symbol]: asyncId,
    [trigger_async_id_symbol]: triggerAsyncId,
    callback,
    args,
  };
  queue.push(tickObject);
}

/** Node 22's and 24's literal, with the async context frame under a symbol of their task queue module. */
function fiveKeyNextTick(callback: () => void, args?: unknown[]) {
  const asyncId = 1;
  const triggerAsyncId = 0;
  const tickObject = {
    [async_id_symbol]: asyncId,
    [trigger_async_id_symbol]: triggerAsyncId,
    [async_context_frame]: AsyncContextFrame.current(),
    callback,
    args,
  };
  queue.push(tickObject);
}

describe("pinTickObjectShape", () => {
  it("pins for a nextTick that builds Node 20's four-key literal, and lets go", () => {
    const shape = pinTickObjectShape({ nextTick: fourKeyNextTick, resource: new AsyncResource("probe") });
    expect(shape.pinned).toBe(true);
    shape.release();
    expect(shape.pinned).toBe(false);
  });

  it("pins on Node 20 itself, and holds nothing on Node 22 or 24 (their literal's fifth key is private to Node)", () => {
    const shape = pinTickObjectShape();
    expect(shape.pinned).toBe(process.versions.node.startsWith("20."));
    shape.release();
  });

  it("holds nothing for the five-key literal, or a nextTick that builds its tick objects some other way", () => {
    const resource = new AsyncResource("probe");
    expect(pinTickObjectShape({ nextTick: fiveKeyNextTick, resource }).pinned).toBe(false);
    const other = (callback: () => void) => queueMicrotask(callback);
    expect(pinTickObjectShape({ nextTick: other, resource }).pinned).toBe(false);
  });

  it("holds nothing when Node's async id symbols cannot be found", () => {
    expect(pinTickObjectShape({ nextTick: fourKeyNextTick, resource: {} }).pinned).toBe(false);
  });
});
