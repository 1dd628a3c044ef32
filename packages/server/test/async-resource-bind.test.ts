import { AsyncLocalStorage, AsyncResource, executionAsyncId } from "node:async_hooks";
import { setFlagsFromString } from "node:v8";
import { afterEach, describe, expect, it, vi } from "vitest";
import { installLeanAsyncResourceBind } from "../src/runtime/async-resource-bind.js";

const nodeBind = AsyncResource.prototype.bind;
afterEach(() => {
  AsyncResource.prototype.bind = nodeBind;
  vi.restoreAllMocks();
});

/** Everything a caller can observe of one bound function, called outside the resource's context. */
function observe(bind: typeof nodeBind, thisArg?: unknown) {
  const storage = new AsyncLocalStorage<string>();
  const resource = storage.run("at bind time", () => new AsyncResource("Probe"));
  const seen: unknown[] = [];
  function probe(this: unknown, a: number, b: number) {
    seen.push({ store: storage.getStore(), asyncId: executionAsyncId() === resource.asyncId(), self: this });
    return a + b;
  }
  // Node's bind takes a thisArg its type declarations leave out.
  const bindWithThis = bind as unknown as (this: AsyncResource, fn: unknown, thisArg?: unknown) => unknown;
  const bound = bindWithThis.call(resource, probe, thisArg) as (
    this: unknown,
    a: number,
    b: number,
  ) => number;
  const receiver = { name: "receiver" };
  const result = storage.run("at call time", () => bound.call(receiver, 2, 3));
  const descriptors = Object.getOwnPropertyDescriptors(bound);
  return {
    result,
    seen,
    length: bound.length,
    keys: Object.keys(bound),
    lengthDescriptor: descriptors.length,
    accessor: {
      enumerable: descriptors.asyncResource?.enumerable,
      configurable: descriptors.asyncResource?.configurable,
      get: typeof descriptors.asyncResource?.get,
      set: typeof descriptors.asyncResource?.set,
    },
  };
}

describe("installLeanAsyncResourceBind", () => {
  it("replaces this Node's own bind (which calls util.deprecate per bind) and puts it back", () => {
    expect(Function.prototype.toString.call(nodeBind)).toContain("deprecate(");
    const uninstall = installLeanAsyncResourceBind();
    expect(AsyncResource.prototype.bind).not.toBe(nodeBind);
    uninstall();
    expect(AsyncResource.prototype.bind).toBe(nodeBind);
  });

  it.each([
    ["without thisArg", undefined],
    ["with thisArg", { name: "bound this" }],
  ])("binds as Node does %s: async scope, this, arguments, result, length, enumerable keys", (_, thisArg) => {
    const expected = observe(nodeBind, thisArg);
    installLeanAsyncResourceBind();
    const actual = observe(AsyncResource.prototype.bind, thisArg);
    expect(actual).toEqual(expected);
    // The values the comparison rests on, so that it cannot pass on two equally wrong answers.
    expect(actual.result).toBe(5);
    expect(actual.seen).toEqual([
      { store: "at bind time", asyncId: true, self: thisArg ?? { name: "receiver" } },
    ]);
    expect(actual.length).toBe(2);
    expect(actual.keys).toEqual(["asyncResource"]);
  });

  it("keeps fn's length, and passes the call's own arguments however many, for any parameter count", () => {
    installLeanAsyncResourceBind();
    const resource = new AsyncResource("Probe");
    // biome-ignore-start lint/complexity/noArguments: the count of the call's own arguments is what is checked
    const functions = [
      function () {
        return arguments.length;
      },
      function (_1: unknown) {
        return arguments.length;
      },
      function (_1: unknown, _2: unknown) {
        return arguments.length;
      },
      function (_1: unknown, _2: unknown, _3: unknown) {
        return arguments.length;
      },
      function (_1: unknown, _2: unknown, _3: unknown, _4: unknown) {
        return arguments.length;
      },
      function (_1: unknown, _2: unknown, _3: unknown, _4: unknown, _5: unknown, _6: unknown) {
        return arguments.length;
      },
    ];
    // biome-ignore-end lint/complexity/noArguments: the count of the call's own arguments is what is checked
    for (const fn of functions) {
      const bound = resource.bind(fn as (...args: unknown[]) => number);
      expect(bound.length).toBe(fn.length);
      expect([bound(), bound(1), bound(1, 2, 3, 4, 5, 6, 7)]).toEqual([0, 1, 7]);
    }
  });

  it("gives every bound function one shared hidden class in fast mode (a redefined length made each a dictionary)", () => {
    // V8's own view of the objects: the cost was a dictionary-mode function per bind (about 2 µs on Node 20).
    setFlagsFromString("--allow-natives-syntax");
    const hasFastProperties = new Function("o", "return %HasFastProperties(o)") as (o: unknown) => boolean;
    const haveSameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (
      a: unknown,
      b: unknown,
    ) => boolean;
    installLeanAsyncResourceBind();
    const resource = new AsyncResource("Probe");
    const first = resource.bind(() => 1);
    const second = new AsyncResource("Other").bind(() => 2);
    expect(hasFastProperties(first)).toBe(true);
    expect(haveSameMap(first, second)).toBe(true);
  });

  it("keeps the deprecated asyncResource accessor: reads and sets the resource, warns DEP0172 once", () => {
    const emitWarning = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    installLeanAsyncResourceBind();
    const resource = new AsyncResource("Probe");
    const bound = resource.bind(() => "called") as (() => string) & { asyncResource: AsyncResource };
    expect(bound.asyncResource).toBe(resource);
    const other = new AsyncResource("Other");
    bound.asyncResource = other;
    expect(bound.asyncResource).toBe(other);
    // Setting the property does not rebind: the function still runs in its own resource's scope, as Node's does.
    expect(bound()).toBe("called");
    const warnings = emitWarning.mock.calls.filter((call) => JSON.stringify(call).includes("DEP0172"));
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[0])).toContain("asyncResource property on bound functions is deprecated");
  });

  it("leaves invalid arguments to Node's bind, for its own error", () => {
    installLeanAsyncResourceBind();
    const resource = new AsyncResource("Probe");
    expect(() => resource.bind("not a function" as never)).toThrow(
      expect.objectContaining({ code: "ERR_INVALID_ARG_TYPE" }),
    );
  });

  it("changes nothing when bind is not Node's slow one (an APM agent's wrapper, a later Node)", () => {
    const wrapper = function bind(this: AsyncResource, fn: () => void) {
      return nodeBind.call(this, fn);
    } as typeof nodeBind;
    const target = { bind: wrapper };
    const uninstall = installLeanAsyncResourceBind(target);
    expect(target.bind).toBe(wrapper);
    uninstall();
    expect(target.bind).toBe(wrapper);
  });

  it("does not undo a bind installed after it", () => {
    const uninstall = installLeanAsyncResourceBind();
    const later = function bind() {
      return () => undefined;
    } as unknown as typeof nodeBind;
    AsyncResource.prototype.bind = later;
    uninstall();
    expect(AsyncResource.prototype.bind).toBe(later);
  });
});
