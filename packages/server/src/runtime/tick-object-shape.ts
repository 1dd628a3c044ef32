import { AsyncResource } from "node:async_hooks";

/** What {@link pinTickObjectShape} reads: Node's `nextTick`, and a resource that carries Node's async id symbols. */
export interface TickObjectShapeSources {
  /** The function whose tick objects' shape is pinned: `process.nextTick` unless a test passes its own. */
  nextTick: (...args: never[]) => unknown;
  /** An object with Node's `async_id_symbol` and `trigger_async_id_symbol` own properties (an `AsyncResource`). */
  resource: object;
}

/** A pinned shape: {@link TickObjectShape.release} lets it go. */
export interface TickObjectShape {
  /** Whether the shape is held: false on a Node that builds its tick objects some other way, and after `release`. */
  readonly pinned: boolean;
  /** Drops the object that holds the shape (on shutdown, or in a test). */
  release(): void;
}

// How Node 20 builds a tick object, in `process.nextTick`'s own source. Node 22 and 24 add a fifth key,
// `[async_context_frame]`, under a symbol private to Node's task queue module: no object outside it can take the
// same hidden classes, so there the pin holds nothing. (Node 24's V8 keeps the literal's feedback monomorphic
// through the same collections; Node 22's goes megamorphic as Node 20's does.)
const TICK_OBJECT_LITERAL =
  /\[async_id_symbol\]:\s*asyncId,\s*\[trigger_async_id_symbol\]:\s*triggerAsyncId,\s*callback,\s*args,?\s*\}/;

function ownSymbol(target: object, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(target).find((symbol) => symbol.description === description);
}

// Why: V8 keeps the hidden classes a literal's properties lead through only while some object has one of them. Tick
// objects live for a turn of the event loop, so a full garbage collection while no tick is queued (the router's
// start runs several: the embedded store's load, the memory reducer once it is idle) frees them, and the next tick
// builds new ones. After a few such rounds the feedback of the literal's property definitions in `nextTick` is
// megamorphic for good, and every tick object (about eleven per routed call) is built by V8's runtime instead of
// optimized code (`perf`: `Runtime_DefineKeyedOwnPropertyInLiteral`).
//
// The pin is one object built by the same literal, so it takes the same hidden classes (V8 shares them between
// literals of the same keys in the same order), and holds them. It is never queued. Its ids are `null`, not
// numbers: the id fields are then general ("tagged") from the start, so the ids passing V8's small-integer range
// after a few hours of traffic does not replace the hidden classes with new ones the pin does not hold.

/**
 * Holds one object of the shape Node 20's `process.nextTick` gives its tick objects, so that full collections do
 * not free that shape and leave `nextTick` building every tick object on V8's slow path. Pin as early as the
 * process can (before its first full collections) and keep the handle. Holds nothing on Node 22 and 24, whose
 * tick objects have a fifth key private to Node.
 *
 * What it saves: docs/performance.md, "Process-wide settings".
 */
export function pinTickObjectShape(
  sources: TickObjectShapeSources = {
    nextTick: process.nextTick,
    resource: new AsyncResource("trestle.tickObjectShape"),
  },
): TickObjectShape {
  const asyncIdKey = ownSymbol(sources.resource, "async_id_symbol");
  const triggerIdKey = ownSymbol(sources.resource, "trigger_async_id_symbol");
  if (
    asyncIdKey === undefined ||
    triggerIdKey === undefined ||
    !TICK_OBJECT_LITERAL.test(Function.prototype.toString.call(sources.nextTick))
  ) {
    return { pinned: false, release: () => undefined };
  }
  // The same keys in the same order as Node's literal: computed ids first, then `callback` and `args`.
  let held: object | undefined = {
    [asyncIdKey]: null,
    [triggerIdKey]: null,
    callback: () => undefined,
    args: undefined,
  };
  return {
    get pinned() {
      return held !== undefined;
    },
    release() {
      held = undefined;
    },
  };
}
