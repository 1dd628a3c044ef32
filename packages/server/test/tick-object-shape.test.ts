import { AsyncResource } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { pinTickObjectShape } from "../src/tick-object-shape.js";

describe("pinTickObjectShape", () => {
  it("pins on this Node, whose nextTick builds its tick object as the literal it expects, and lets go", () => {
    expect(Function.prototype.toString.call(process.nextTick)).toContain("[async_id_symbol]: asyncId");
    const shape = pinTickObjectShape();
    expect(shape.pinned).toBe(true);
    shape.release();
    expect(shape.pinned).toBe(false);
  });

  it("holds nothing when nextTick builds its tick objects some other way", () => {
    const shape = pinTickObjectShape({
      nextTick: function nextTick(callback: () => void) {
        queueMicrotask(callback);
      },
      resource: new AsyncResource("probe"),
    });
    expect(shape.pinned).toBe(false);
  });

  it("holds nothing when Node's async id symbols cannot be found", () => {
    const shape = pinTickObjectShape({ nextTick: process.nextTick, resource: {} });
    expect(shape.pinned).toBe(false);
  });
});
