import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type CodeOutput,
  type CodeRun,
  type ServiceTarget,
  type ToolCall,
  TrestleError,
  withInterceptors,
} from "@trestle/core";
import type { TransportSelector } from "@trestle/core/routing";
import { afterEach, describe, expect, it } from "vitest";
import { type ConcurrencyLimit, concurrencyLimit, interceptTransports } from "../../src/index.js";

interface Pending {
  uri: string;
  options: CallOptions | undefined;
  finish(): void;
}

/** A transport whose calls end only when the test says so, recording what reached it. */
function createHeldTransport() {
  const running: Pending[] = [];
  const reached: string[] = [];
  let probes = 0;
  const transport: BridgeTransport = {
    async provision() {
      return { configurationUri: "", secretsUri: "", properties: {} };
    },
    callTool(call, _target, options) {
      const uri = call.tool.uri;
      reached.push(uri);
      return new Promise((resolve) => {
        const pending: Pending = {
          uri,
          options,
          finish() {
            running.splice(running.indexOf(pending), 1);
            resolve({ content: [{ type: "text", text: uri }] });
          },
        };
        running.push(pending);
      });
    },
    async readResource() {
      throw new TrestleError("not used", Code.Unimplemented);
    },
    async *executeCode(request, _target, options): AsyncGenerator<CodeOutput> {
      reached.push(`stream:${request.code}`);
      let finish!: () => void;
      const done = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const pending: Pending = { uri: `stream:${request.code}`, options, finish: () => finish() };
      running.push(pending);
      try {
        yield { type: "output", stream: "stdout", text: "first" };
        await done;
      } finally {
        running.splice(running.indexOf(pending), 1);
      }
    },
    async probeHealth() {
      probes++;
      return { state: "healthy" };
    },
    async close() {},
  };
  return {
    transport,
    running,
    reached,
    probes: () => probes,
    finish(uri: string) {
      const pending = running.find((p) => p.uri === uri);
      if (!pending) throw new Error(`${uri} is not running`);
      pending.finish();
    },
  };
}

const target = (serviceName: string, id = serviceName): ServiceTarget => ({
  id,
  serviceName,
  host: "127.0.0.1",
  port: 9000,
  serviceType: "tool-invoker",
});

const call = (uri: string): ToolCall => ({ tool: { name: uri, uri, type: "slow" }, arguments: {} });

/** Lets every settled promise run its callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("concurrencyLimit through interceptTransports (a selector the root did not build)", () => {
  let held: ReturnType<typeof createHeldTransport>;
  let selector: TransportSelector;
  const limits = new Map<string, ConcurrencyLimit>();

  function limited(): TransportSelector {
    held = createHeldTransport();
    const inner: TransportSelector = {
      transportFor: () => held.transport,
      release() {},
      close: () => held.transport.close(),
    };
    selector = interceptTransports(inner, [concurrencyLimit((t) => limits.get(t.serviceName))]);
    return selector;
  }

  afterEach(() => limits.clear());

  it("runs at most N calls at once, queues the next M in order, and refuses the rest at once", async () => {
    limits.set("slow", { maxConcurrentCalls: 2, maxQueuedCalls: 2 });
    const transports = limited();
    const t = target("slow");
    const results = ["a", "b", "c", "d"].map((uri) => transports.transportFor(t).callTool(call(uri), t, {}));
    await settle();
    expect(held.reached).toEqual(["a", "b"]);

    const refused = await transports
      .transportFor(t)
      .callTool(call("e"), t, {})
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TrestleError);
    expect((refused as TrestleError).code).toBe(Code.ResourceExhausted);
    expect((refused as TrestleError).rawMessage).toBe("at its limit of 2 concurrent calls and 2 queued");

    held.finish("b");
    await settle();
    expect(held.reached).toEqual(["a", "b", "c"]);
    held.finish("a");
    await settle();
    expect(held.reached).toEqual(["a", "b", "c", "d"]);
    held.finish("c");
    held.finish("d");
    expect((await Promise.all(results)).map((r) => r.content[0])).toEqual(
      ["a", "b", "c", "d"].map((text) => ({ type: "text", text })),
    );
    // Every slot came back: two run at once again.
    const again = ["f", "g"].map((uri) => transports.transportFor(t).callTool(call(uri), t, {}));
    await settle();
    expect(held.running.map((p) => p.uri)).toEqual(["f", "g"]);
    held.finish("f");
    held.finish("g");
    await Promise.all(again);
  });

  it("counts every instance of a service together, and leaves other services and health probes alone", async () => {
    limits.set("slow", { maxConcurrentCalls: 1, maxQueuedCalls: 0 });
    const transports = limited();
    const one = target("slow", "one");
    const two = target("slow", "two");
    const first = transports.transportFor(one).callTool(call("a"), one, {});
    await settle();
    await expect(transports.transportFor(two).callTool(call("b"), two, {})).rejects.toMatchObject({
      code: Code.ResourceExhausted,
    });
    const other = target("fast");
    const fast = transports.transportFor(other).callTool(call("fast"), other, {});
    await settle();
    expect(held.reached).toEqual(["a", "fast"]);
    await transports.transportFor(one).probeHealth(one);
    expect(held.probes()).toBe(1);
    held.finish("fast");
    held.finish("a");
    await Promise.all([first, fast]);
  });

  it("a waiting call whose signal aborts leaves the queue and never reaches the service", async () => {
    limits.set("slow", { maxConcurrentCalls: 1, maxQueuedCalls: 2 });
    const transports = limited();
    const t = target("slow");
    const first = transports.transportFor(t).callTool(call("a"), t, {});
    const controller = new AbortController();
    const cancelled = transports
      .transportFor(t)
      .callTool(call("b"), t, { signal: controller.signal })
      .catch((e: unknown) => e);
    const third = transports.transportFor(t).callTool(call("c"), t, {});
    await settle();
    controller.abort();
    expect(await cancelled).toMatchObject({ code: Code.Canceled });
    held.finish("a");
    await settle();
    expect(held.reached).toEqual(["a", "c"]);
    held.finish("c");
    await Promise.all([first, third]);
  });

  it("a waiting call whose deadline passes leaves the queue; one that got a slot has only what is left of it", async () => {
    limits.set("slow", { maxConcurrentCalls: 1, maxQueuedCalls: 2, unaryTimeoutMs: 10_000 });
    const transports = limited();
    const t = target("slow");
    const first = transports.transportFor(t).callTool(call("a"), t, {});
    const startedAt = Date.now();
    const late = await transports
      .transportFor(t)
      .callTool(call("late"), t, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(late).toMatchObject({ code: Code.ResourceExhausted });
    expect((late as TrestleError).rawMessage).toBe(
      "at its limit of 1 concurrent call and 2 queued; the call's deadline of 50 ms passed while it waited for a free slot",
    );

    // Without its own deadline the call gets the service's default, less the time it waited.
    const waiting = transports.transportFor(t).callTool(call("b"), t, {});
    await new Promise((resolve) => setTimeout(resolve, 30));
    held.finish("a");
    await settle();
    expect(held.reached).toEqual(["a", "b"]);
    const timeoutMs = held.running[0]?.options?.timeoutMs as number;
    expect(timeoutMs).toBeLessThanOrEqual(10_000 - 25);
    expect(timeoutMs).toBeGreaterThan(5_000);
    expect(held.running.length).toBe(1);
    held.finish("b");
    await Promise.all([first, waiting]);
    // A call that did not wait keeps its options as they were (the transport applies its own default).
    const free = transports.transportFor(t).callTool(call("free"), t, {});
    await settle();
    expect(held.running[0]?.options?.timeoutMs).toBeUndefined();
    held.finish("free");
    await free;
  });

  it("a code execution stream holds its slot until it ends or its consumer stops", async () => {
    limits.set("engine", { maxConcurrentCalls: 1, maxQueuedCalls: 1 });
    const transports = limited();
    const t = { ...target("engine"), serviceType: "code-execution-engine" as const };
    const first: CodeOutput = { type: "output", stream: "stdout", text: "first" };
    const request = (code: string): CodeRun => ({ engineType: "engine", language: "python", code });

    const stream = transports.transportFor(t).executeCode(request("one"), t, {})[Symbol.asyncIterator]();
    expect((await stream.next()).value).toEqual(first);
    const second = transports.transportFor(t).executeCode(request("two"), t, {})[Symbol.asyncIterator]();
    const secondFirst = second.next();
    await settle();
    expect(held.reached).toEqual(["stream:one"]);

    // The consumer of the first stream stops early: its slot goes to the waiting stream.
    await stream.return?.();
    expect((await secondFirst).value).toEqual(first);
    expect(held.reached).toEqual(["stream:one", "stream:two"]);
    held.finish("stream:two");
    expect((await second.next()).done).toBe(true);

    const third = transports.transportFor(t).executeCode(request("three"), t, {})[Symbol.asyncIterator]();
    expect((await third.next()).value).toEqual(first);
    await third.return?.();
  });
});

describe("concurrencyLimit (the interceptor)", () => {
  it("holds one service's limit across every transport it is part of", async () => {
    const limit = concurrencyLimit((t) =>
      t.serviceName === "slow" ? { maxConcurrentCalls: 1, maxQueuedCalls: 1 } : undefined,
    );
    const grpc = createHeldTransport();
    const connect = createHeldTransport();
    const viaGrpc = withInterceptors(grpc.transport, [limit]);
    const viaConnect = withInterceptors(connect.transport, [limit]);
    const one = target("slow", "one");
    const two = target("slow", "two");
    const first = viaGrpc.callTool(call("a"), one);
    const queued = viaConnect.callTool(call("b"), two);
    await settle();
    expect([grpc.reached, connect.reached]).toEqual([["a"], []]);
    await expect(viaConnect.callTool(call("c"), two)).rejects.toMatchObject({ code: Code.ResourceExhausted });
    grpc.finish("a");
    await settle();
    expect(connect.reached).toEqual(["b"]);
    connect.finish("b");
    await Promise.all([first, queued]);
  });
});
