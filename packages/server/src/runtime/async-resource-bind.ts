import { AsyncResource } from "node:async_hooks";
import { deprecate } from "node:util";

type Bind = AsyncResource["bind"];

/** What {@link installLeanAsyncResourceBind} changes: `AsyncResource.prototype` unless a test passes its own. */
export interface AsyncResourceBindTarget {
  bind: Bind;
}

const DEP0172 = "The asyncResource property on bound functions is deprecated";

type AnyFunction = (...args: unknown[]) => unknown;
type MakeBound = (resource: AsyncResource, fn: AnyFunction, thisArg: unknown) => AnyFunction;

// Bound functions whose `length` is `fn.length` by declaration. Redefining a function's `length` (an accessor V8
// keeps on every function's map) turns the function into a dictionary-mode object: about 2 µs a bind on Node 20,
// against 0.1 µs for these. `arguments`, not rest parameters, so that the call's own arguments pass on unchanged.
// biome-ignore-start lint/complexity/noArguments: a declared parameter list fixes `length`; `arguments` passes the call's own
const boundOfLength: readonly MakeBound[] = [
  (resource, fn, thisArg) =>
    function bound(this: unknown) {
      return resource.runInAsyncScope(fn, thisArg === undefined ? this : thisArg, ...arguments);
    },
  (resource, fn, thisArg) =>
    function bound(this: unknown, _1: unknown) {
      return resource.runInAsyncScope(fn, thisArg === undefined ? this : thisArg, ...arguments);
    },
  (resource, fn, thisArg) =>
    function bound(this: unknown, _1: unknown, _2: unknown) {
      return resource.runInAsyncScope(fn, thisArg === undefined ? this : thisArg, ...arguments);
    },
  (resource, fn, thisArg) =>
    function bound(this: unknown, _1: unknown, _2: unknown, _3: unknown) {
      return resource.runInAsyncScope(fn, thisArg === undefined ? this : thisArg, ...arguments);
    },
];
// biome-ignore-end lint/complexity/noArguments: a declared parameter list fixes `length`; `arguments` passes the call's own

/** Longer parameter lists are rare: their bound function gets its `length` redefined, at the dictionary-mode cost. */
const boundOfAnyLength: MakeBound = (resource, fn, thisArg) => {
  const bound = function bound(this: unknown, ...args: unknown[]) {
    return resource.runInAsyncScope(fn, thisArg === undefined ? this : thisArg, ...args);
  };
  Object.defineProperty(bound, "length", {
    configurable: true,
    enumerable: false,
    value: fn.length,
    writable: false,
  });
  return bound;
};

// Where each bound function keeps its resource, so that all of them share one getter and one setter, and so one
// hidden class, for as long as the process lives (a second install reuses them: V8 turns a function whose accessor
// differs from the one its hidden class was first given one with into a dictionary-mode object). With a fresh
// getter and setter per bind and `length` redefined, a loop of binds on Node 20 ran 13 times slower and kept 46 %
// of what it allocated alive through each young collection.
const resourceKey = Symbol("asyncResource");
type BoundFunction = AnyFunction & { [resourceKey]: AsyncResource };
// util.deprecate emits DEP0172 once per process, as Node's own accessors do.
const warnDeprecatedAccessor = deprecate(() => undefined, DEP0172, "DEP0172");
const asyncResourceAccessor = {
  configurable: true,
  enumerable: true,
  get(this: BoundFunction) {
    warnDeprecatedAccessor();
    return this[resourceKey];
  },
  set(this: BoundFunction, value: AsyncResource) {
    warnDeprecatedAccessor();
    this[resourceKey] = value;
  },
};

// Why: Node 20–24 give each bound function a deprecated `asyncResource` accessor (DEP0172) by wrapping a fresh
// getter and setter in `util.deprecate`, which sets the prototype of a new function each time: 15 µs a bind on
// Node 20, 3 µs on Node 24 (nodejs/node#58218; #58618 ends the property). `node:http2`'s client binds once per
// `session.request()`, so every gRPC call the router makes pays it.
//
// The replacement keeps what callers can observe: the bound function runs `fn` in the resource's async scope with
// the same `this` and arguments, has `fn`'s `length`, and an enumerable, configurable `asyncResource` accessor that
// returns (and sets) the resource and emits the DEP0172 warning once per process (the resource itself sits under a
// symbol of this module's). Invalid arguments go to Node's own `bind`, for its error. A bind costs about 0.16 µs on
// Node 20: every bound function has the same hidden class, in fast mode.

/**
 * Replaces Node's `AsyncResource.prototype.bind` (which calls `util.deprecate` twice per bind, once per
 * `node:http2` request) with an equivalent that does not; returns a function that puts Node's back. Changes
 * nothing when `bind` is not Node's own slow one (an APM agent's wrapper, a Node without the cost).
 *
 * What it saves on each Node: docs/performance.md, "Process-wide settings".
 */
export function installLeanAsyncResourceBind(
  target: AsyncResourceBindTarget = AsyncResource.prototype,
): () => void {
  const original = target.bind;
  if (!Function.prototype.toString.call(original).includes("deprecate(")) return () => undefined;
  const lean = function bind(this: AsyncResource, fn: AnyFunction, thisArg?: unknown) {
    if (typeof fn !== "function") return (original as AnyFunction).call(this, fn, thisArg);
    const bound: AnyFunction = (boundOfLength[fn.length] ?? boundOfAnyLength)(this, fn, thisArg);
    // One defineProperty and one assignment: `Object.defineProperties` with both costs four times as much.
    Object.defineProperty(bound, "asyncResource", asyncResourceAccessor);
    (bound as BoundFunction)[resourceKey] = this;
    return bound;
  } as unknown as Bind;
  target.bind = lean;
  return () => {
    if (target.bind === lean) target.bind = original;
  };
}
