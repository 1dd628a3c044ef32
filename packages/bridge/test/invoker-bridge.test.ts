import { Code, type ToolReference, TrestleError } from "@trestle/core";
import type { ToolCallEvent, ToolCallEventSink, ToolCallFailedEvent } from "@trestle/core/events";
import { createTransportSelector } from "@trestle/core/routing";
import { createWanakuReferenceCapability, type WanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  callEvents,
  createEventHub,
  createInvokerBridge,
  type InvokerBridge,
  interceptTransports,
  outcomeFeedback,
  scrubSecrets,
} from "../src/index.js";
import { createHarness, echoed, type Harness, textOf } from "./harness.js";

function tool(uri: string, extra: Partial<ToolReference> = {}): ToolReference {
  return { name: "forecast", type: "weather", uri, ...extra };
}

let harness: Harness;
let capability: WanakuReferenceCapability;
let bridge: InvokerBridge;

beforeEach(() => {
  harness = createHarness();
  capability = createWanakuReferenceCapability();
  bridge = createInvokerBridge(harness.deps);
});

afterEach(async () => {
  await harness.close();
});

function failedEvent(): ToolCallFailedEvent {
  const failed = harness.events.filter((e) => e.type === "failed");
  expect(failed).toHaveLength(1);
  return failed[0] as ToolCallFailedEvent;
}

describe("execute: the request reaches the capability", () => {
  it("sends the request built per contract §4 and returns each content string as a text item", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const result = await bridge.execute(
      {
        city: "Oslo",
        days: 3,
        wanaku_meta_X_Trace: "t1",
        wanaku_auth_Authorization: "Bearer abcdefgh",
        wanaku_body: "hello",
      },
      tool("echo://forecast/{city}", {
        configurationURI: "mem://config/forecast",
        inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } },
      }),
      {
        requestId: "17",
        metadata: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
      },
    );
    expect(result.isError).toBeUndefined();
    expect(result.content).toHaveLength(1);
    expect(result.content[0]?.type).toBe("text");
    const seen = echoed(textOf(result.content[0]));
    expect(seen).toMatchObject({
      uri: "echo://forecast/{city}",
      body: "hello",
      arguments: { city: "Oslo", days: "3", wanaku_body: "hello" },
      configurationUri: "mem://config/forecast",
      secretsUri: "",
      requestId: "17",
    });
    expect(seen.headers.X_Trace).toBe("t1");
    expect(seen.metadata["x-wanaku-request-id"]).toBe("17");
    expect(seen.metadata.traceparent).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  });

  it("returns several content strings as several text items, in order", async () => {
    harness.serve(
      { toolInvoker: () => ({ content: ["one", "two"] }) },
      { serviceName: "weather", serviceType: "tool-invoker" },
    );
    const result = await bridge.execute({}, tool("x://y"));
    expect(result).toEqual({
      content: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
    });
  });
});

describe("execute: resolution", () => {
  it("resolves (type, tool-invoker) first", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    await bridge.execute({}, tool("echo://a"));
    expect(harness.resolver.asked).toEqual(["weather/tool-invoker"]);
  });

  it("reaches a multi-capability service through the resolver", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "multi-capability" });
    const result = await bridge.execute({}, tool("echo://a"));
    expect(result.isError).toBeUndefined();
  });

  it("falls back to (type, code-execution-engine) when no tool invoker serves the type", async () => {
    const engine = harness.serve(capability.handlers, {
      serviceName: "weather",
      serviceType: "code-execution-engine",
    });
    const result = await bridge.execute({}, tool("echo://a"));
    expect(result.isError).toBeUndefined();
    expect(harness.resolver.asked).toEqual(["weather/tool-invoker", "weather/code-execution-engine"]);
    expect(harness.events[0]).toMatchObject({ type: "started", serviceId: engine.id });
  });

  it("answers a clear not-found error naming the type when nothing serves it", async () => {
    const result = await bridge.execute({}, tool("echo://a", { type: "nope" }));
    expect(result.isError).toBe(true);
    expect(textOf(result.content[0])).toMatch(/^No capability service is registered for tool type 'nope'/);
    expect(failedEvent().errorCategory).toBe("tool_definition_error");
    expect(harness.events.map((e) => e.type)).toEqual(["started", "failed"]);
    expect(harness.events[0]).not.toHaveProperty("serviceId");
  });

  it("takes the target from a resolver that answers at once, without asking its resolve", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const askedNow: string[] = [];
    harness.deps.resolver.resolveNow = (serviceName, serviceType) => {
      askedNow.push(`${serviceName}/${serviceType}`);
      return harness.resolver.targets.find((t) => t.serviceName === serviceName);
    };
    const result = await bridge.execute({ city: "Oslo" }, tool("echo://a"));
    expect(result.isError).toBeUndefined();
    expect(askedNow).toEqual(["weather/tool-invoker"]);
    expect(harness.resolver.asked).toEqual([]);
  });

  it("asks resolve when the resolver cannot answer at once, or fails to", async () => {
    const engine = harness.serve(capability.handlers, {
      serviceName: "weather",
      serviceType: "code-execution-engine",
    });
    harness.deps.resolver.resolveNow = () => undefined;
    expect((await bridge.execute({}, tool("echo://a"))).isError).toBeUndefined();
    expect(harness.resolver.asked).toEqual(["weather/tool-invoker", "weather/code-execution-engine"]);
    expect(harness.events[0]).toMatchObject({ type: "started", serviceId: engine.id });

    harness.deps.resolver.resolveNow = () => {
      throw new Error("view not loaded");
    };
    expect((await bridge.execute({}, tool("echo://a"))).isError).toBeUndefined();
    expect(harness.resolver.asked).toHaveLength(4);
  });

  it("turns a resolver that throws into an error result instead of a rejection", async () => {
    harness.deps.resolver.resolve = async () => {
      throw new Error("registry offline");
    };
    const result = await bridge.execute({}, tool("echo://a"));
    expect(result).toEqual({ content: [{ type: "text", text: "registry offline" }], isError: true });
  });

  it("turns a missing transport for the service's protocol into an error result", async () => {
    harness.serve(capability.handlers, {
      serviceName: "weather",
      serviceType: "tool-invoker",
      protocol: "smoke",
    });
    const result = await bridge.execute({}, tool("echo://a"));
    expect(result.isError).toBe(true);
    expect(textOf(result.content[0])).toMatch(/No transport is configured for protocol 'smoke'/);
  });
});

describe("execute: failures are results a user can act on", () => {
  it("reports missing required arguments without calling anything", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const result = await bridge.execute(
      { b: 1 },
      tool("echo://a", { inputSchema: { type: "object", required: ["a", "b", "c"] } }),
    );
    expect(result).toEqual({
      content: [{ type: "text", text: "Missing required parameter(s): a, c" }],
      isError: true,
    });
    expect(harness.resolver.asked).toEqual([]);
    expect(failedEvent()).toMatchObject({
      errorCategory: "invalid_arguments",
      errorMessage: "Missing required parameter(s): a, c",
    });
  });

  it("names the service and its address when it is unavailable", async () => {
    harness.registerDead("weather", "tool-invoker");
    const result = await bridge.execute({}, tool("echo://a"));
    expect(result.isError).toBe(true);
    expect(textOf(result.content[0])).toMatch(
      /^The capability service 'weather' at nowhere:9 is unavailable/,
    );
    expect(failedEvent().errorCategory).toBe("service_unavailable");
  });

  it("names the service when it does not answer within the deadline", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const result = await bridge.execute({}, tool("sleep://5000"), { timeoutMs: 20 });
    expect(textOf(result.content[0])).toMatch(
      /^The capability service 'weather' at in-memory:\d+ did not answer in time/,
    );
    expect(failedEvent().errorCategory).toBe("service_unavailable");
  });

  it("shows an error the service reported as the service wrote it", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const result = await bridge.execute({}, tool("fail://Internal/the%20upstream%20API%20answered%20500"));
    expect(result).toEqual({
      content: [{ type: "text", text: "the upstream API answered 500" }],
      isError: true,
    });
  });

  it.each([
    ["Internal", "service unavailable: deadline exceeded", "execution_error"],
    ["InvalidArgument", "boom", "invalid_arguments"],
    ["NotFound", "boom", "tool_definition_error"],
    ["Unimplemented", "boom", "tool_definition_error"],
    ["Unavailable", "invalid argument", "service_unavailable"],
    ["FailedPrecondition", "boom", "service_unavailable"],
    ["Unknown", "not found", "unknown"],
  ])(
    "categorizes a %s status with the text '%s' as %s: from the code, not the text",
    async (code, text, category) => {
      harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
      await bridge.execute({}, tool(`fail://${code}/${encodeURIComponent(text)}`));
      expect(failedEvent().errorCategory).toBe(category);
    },
  );

  it("cancels the call on the service when the MCP request is cancelled", async () => {
    const reference = capability.handlers.toolInvoker;
    if (!reference) throw new Error("the reference capability invokes tools");
    let entered: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      entered = resolve;
    });
    harness.serve(
      {
        toolInvoker: (request, context) => {
          entered();
          return reference(request, context);
        },
      },
      { serviceName: "weather", serviceType: "tool-invoker" },
    );
    const controller = new AbortController();
    const pending = bridge.execute({}, tool("sleep://10000"), { signal: controller.signal });
    await running;
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(textOf(result.content[0])).toBe("The call to tool 'forecast' was cancelled");
    expect(failedEvent().errorCategory).toBe("none");
    await expect.poll(() => capability.observations.abortedCalls).toEqual(["sleep://10000"]);
  });
});

describe("execute: events and outcomes", () => {
  it("emits STARTED then COMPLETED with the same id, the service, the context and the duration", async () => {
    const target = harness.serve(
      {
        toolInvoker: () => {
          harness.advance(250);
          return { content: ["sunny"] };
        },
      },
      { serviceName: "weather", serviceType: "tool-invoker" },
    );
    await bridge.execute(
      { city: "Oslo" },
      tool("x://y", { namespace: "travel", configurationURI: "mem://c", secretsURI: "mem://s" }),
      { requestId: "9", connectionId: "session-1" },
    );
    expect(harness.events).toEqual([
      {
        type: "started",
        eventId: "event-1",
        timestamp: 1_000_000,
        toolName: "forecast",
        toolType: "weather",
        kind: "tool",
        namespace: "travel",
        requestId: "9",
        connectionId: "session-1",
        serviceId: target.id,
        serviceAddress: `in-memory:${target.port}`,
        arguments: { city: "Oslo" },
        headers: {},
        body: "",
        configurationURI: "mem://c",
        secretsURI: "[REDACTED]",
      },
      {
        type: "completed",
        eventId: "event-1",
        timestamp: 1_000_250,
        toolName: "forecast",
        toolType: "weather",
        kind: "tool",
        namespace: "travel",
        requestId: "9",
        isError: false,
        content: ["sunny"],
        duration: 250,
      },
    ]);
  });

  it("emits FAILED with duration, category and message", async () => {
    harness.serve(
      {
        toolInvoker: () => {
          harness.advance(40);
          throw new TrestleError("quota exceeded", Code.Internal);
        },
      },
      { serviceName: "weather", serviceType: "tool-invoker" },
    );
    await bridge.execute({}, tool("x://y"), { namespace: "ns1" });
    expect(harness.events[1]).toEqual({
      type: "failed",
      eventId: "event-1",
      timestamp: 1_000_040,
      toolName: "forecast",
      toolType: "weather",
      kind: "tool",
      namespace: "ns1",
      isError: true,
      content: ["quota exceeded"],
      duration: 40,
      errorCategory: "execution_error",
      errorMessage: "quota exceeded",
    });
  });

  it("tells the outcome listener about each dispatched call, with serviceFailure per isServiceFailure", async () => {
    const live = harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const dead = harness.registerDead("storm", "tool-invoker");
    await bridge.execute({}, tool("echo://a"));
    await bridge.execute({}, tool("fail://Internal/x"));
    await bridge.execute({}, tool("echo://a", { type: "storm" }));
    await bridge.execute({}, tool("echo://a", { inputSchema: { type: "object", required: ["q"] } }));
    expect(harness.outcomes.log).toEqual([
      `started:${live.id}`,
      `ended:${live.id}:false`,
      `started:${live.id}`,
      `ended:${live.id}:false`,
      `started:${dead.id}`,
      `ended:${dead.id}:true`,
    ]);
  });

  it("still answers when the event sink and the outcome listener throw", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const sink = {
      emit() {
        throw new Error("sink down");
      },
    };
    const throwing = createInvokerBridge({
      ...harness.deps,
      events: sink,
      transports: interceptTransports(createTransportSelector({ byProtocol: { grpc: harness.transport } }), [
        callEvents({ sink }),
        scrubSecrets(),
        outcomeFeedback({
          callStarted() {
            throw new Error("listener down");
          },
          callEnded() {
            throw new Error("listener down");
          },
        }),
      ]),
    });
    const result = await throwing.execute({ q: 1 }, tool("echo://a"));
    expect(result.isError).toBeUndefined();
    expect(echoed(textOf(result.content[0])).arguments).toEqual({ q: "1" });
  });
});

describe("events built only when kept or read", () => {
  it("builds no event while the sink wants none, and records again once it does", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const emitted: string[] = [];
    let wanted = false;
    const sink = {
      emit(event: { type: string }) {
        emitted.push(event.type);
      },
      wantsEvents: () => wanted,
    };
    const lazy = createInvokerBridge(harness.depsWithEvents(sink));
    const quiet = await lazy.execute({ city: "Oslo" }, tool("echo://a"));
    expect(echoed(textOf(quiet.content[0])).arguments).toEqual({ city: "Oslo" });
    expect(emitted).toEqual([]);
    wanted = true;
    await lazy.execute({ city: "Bergen" }, tool("echo://a"));
    expect(emitted).toEqual(["started", "completed"]);
  });

  it("keeps a call's events unbuilt in a history nobody reads, and builds them redacted and scrubbed when read", async () => {
    harness.serve(capability.handlers, { serviceName: "weather", serviceType: "tool-invoker" });
    const args = { city: "Oslo", api_key: "k-very-secret-42", wanaku_meta_Trace: "t1" };
    const kept = createEventHub();
    const live = createEventHub();
    const liveEvents: ToolCallEvent[] = [];
    live.subscribe((event) => void liveEvents.push(event));
    let built = 0;
    const countingHub: ToolCallEventSink = {
      emit: (event) => kept.emit(event),
      wantsEvents: () => true,
      emitLater: (events, step, bytes) =>
        kept.emitLater?.(
          {
            buildEvent(at) {
              built++;
              return events.buildEvent(at);
            },
          },
          step,
          bytes,
        ) ?? false,
    };
    const lazy = createInvokerBridge(harness.depsWithEvents(countingHub));
    const eager = createInvokerBridge(harness.depsWithEvents(live));
    await lazy.execute(args, tool("echo://a"));
    await eager.execute(args, tool("echo://a"));
    expect(built).toBe(0);
    const history = kept.history();
    expect(built).toBe(2);
    expect(history.map((e) => e.type)).toEqual(["started", "completed"]);
    // The same events the eager path builds, but for their ids and times.
    const comparable = (e: ToolCallEvent) => ({ ...e, eventId: "", timestamp: 0, duration: 0 });
    expect(history.map(comparable)).toEqual(liveEvents.map(comparable));
    const text = JSON.stringify(history);
    expect(text).not.toContain("k-very-secret-42");
    expect(text).toContain("Oslo");
    expect(history[0]?.eventId).toBe(history[1]?.eventId);
  });
});
