import { AsyncResource } from "node:async_hooks";
import { deprecate } from "node:util";

type Bind = AsyncResource["bind"];

/** What {@link installLeanAsyncResourceBind} changes: `AsyncResource.prototype` unless a test passes its own. */
export interface AsyncResourceBindTarget {
  bind: Bind;
}

const DEP0172 = "The asyncResource property on bound functions is deprecated";

/**
 * Replaces `AsyncResource.prototype.bind` with an equivalent that does not call `util.deprecate` on every bind,
 * and returns a function that puts the original back. Returns a no-op (and changes nothing) unless the current
 * `bind` is Node's own slow one, so an APM agent's wrapper or a Node release without the cost is left alone.
 *
 * Why: Node 20–24 give each bound function a deprecated `asyncResource` accessor (DEP0172) by wrapping a fresh
 * getter and setter in `util.deprecate`, which sets the prototype of a new function each time: 15 µs a bind on
 * Node 20, 3 µs on Node 24 (nodejs/node#58218; #58618 ends the property). `node:http2`'s client binds once per
 * `session.request()`, so every gRPC call the router makes paid it: about 4 % of the router's CPU per call.
 *
 * The replacement keeps what callers can observe: the bound function runs `fn` in the resource's async scope
 * with the same `this` and arguments, has `fn`'s `length`, and an enumerable, configurable `asyncResource`
 * accessor that returns (and sets) the resource and emits the DEP0172 warning once per process. Invalid
 * arguments go to Node's own `bind`, for its error.
 *
 * Process-wide, so the `trestle serve` command installs it (a composition root's choice, like its V8 flags);
 * an application embedding `createRouter` may call it too.
 */
export function installLeanAsyncResourceBind(
  target: AsyncResourceBindTarget = AsyncResource.prototype,
): () => void {
  const original = target.bind;
  if (!Function.prototype.toString.call(original).includes("deprecate(")) return () => undefined;
  // One deprecated no-op: util.deprecate warns once per code, as Node's own accessors do.
  const warn = deprecate(() => undefined, DEP0172, "DEP0172");
  type AnyFunction = (...args: unknown[]) => unknown;
  const lean = function bind(this: AsyncResource, fn: AnyFunction, thisArg?: unknown) {
    if (typeof fn !== "function") return (original as AnyFunction).call(this, fn, thisArg);
    let bound: AnyFunction;
    if (thisArg === undefined) {
      const resource = this;
      bound = function (this: unknown, ...args: unknown[]) {
        return resource.runInAsyncScope(fn, this, ...args);
      };
    } else {
      bound = this.runInAsyncScope.bind(this, fn, thisArg);
    }
    let resource: AsyncResource = this;
    Object.defineProperties(bound, {
      length: { configurable: true, enumerable: false, value: fn.length, writable: false },
      asyncResource: {
        configurable: true,
        enumerable: true,
        // Arrow functions: no prototype to make, unlike the `function` Node hands to util.deprecate.
        get: () => {
          warn();
          return resource;
        },
        set: (value: AsyncResource) => {
          warn();
          resource = value;
        },
      },
    });
    return bound;
  } as unknown as Bind;
  target.bind = lean;
  return () => {
    if (target.bind === lean) target.bind = original;
  };
}
