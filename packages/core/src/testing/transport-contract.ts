import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BridgeTransport, CodeOutput, CodeRun, ToolCall } from "../call.js";
import { CancellationController, setCancellation } from "../cancellation.js";
import type { ToolReference } from "../catalog.js";
import type { ContentBlock } from "../content.js";
import { createContextValues } from "../context-values.js";
import { Code, TrestleError } from "../error.js";
import type { ServedCapability } from "../in-memory-transport.js";
import type { ServiceHandlers } from "../service-handlers.js";
import type { ServiceTarget } from "../service-target.js";
import { type TranslationLeg, translationRecorderKey } from "../translation.js";
import { createReferenceCapability, type ReferenceCapability } from "./reference-capability.js";

/** How the kit reaches the implementation under test. */
export interface TransportContractOptions {
  /** Names the suite, e.g. `"grpc transport ↔ capability SDK"`. */
  name: string;
  /** A new transport under test. The kit closes it after each test. */
  createTransport(): BridgeTransport | Promise<BridgeTransport>;
  /**
   * Serves the handlers as a backend the transport can reach (for a Wanaku transport, through
   * `wanakuHandlers` from `@trestle/wanaku`), in this process (the kit observes the handlers' side effects),
   * and returns its target.
   */
  serve(handlers: ServiceHandlers): Promise<ServedCapability> | ServedCapability;
  /** A target on which nothing listens. */
  deadTarget(): ServiceTarget | Promise<ServiceTarget>;
  /**
   * What the protocol under test can carry, for a wire that lacks part of the contract (MCP has no code
   * execution, provisioning or call metadata; A2A has no resources either, and no error codes). Absent: all of
   * it. A method the wire cannot carry must reject with `Unimplemented` naming it, which the kit checks instead.
   */
  expresses?: ContractFeatures;
}

/** Parts of the contract a wire may lack; each defaults to `true`. See {@link TransportContractOptions.expresses}. */
export interface ContractFeatures {
  /** A tool call's configuration and secrets URIs, request id and metadata reach the service. */
  callFields?: boolean;
  /** `readResource` reads the service's resources. */
  resources?: boolean;
  /** A resource read's resource type and name, params and request id reach the service. */
  resourceFields?: boolean;
  /**
   * A service's failure rejects the call with the service's code (at least `InvalidArgument`, `NotFound` and
   * `Internal`). Without it (an A2A task that ends `FAILED` says why in words only), the call resolves with an
   * `isError` result that keeps the service's message.
   */
  serviceErrorCodes?: boolean;
  /** Service errors keep their code on the wire beyond `InvalidArgument`, `NotFound` and `Internal`. */
  allErrorCodes?: boolean;
  /** The health probe can say `pending` and `unhealthy`, not only answer or not. */
  healthStates?: boolean;
  /** `executeCode` streams. */
  codeExecution?: boolean;
  /** `provision` provisions. */
  provisioning?: boolean;
  /**
   * The transport reports the leg it speaks to the call's `TranslationRecorder` (every transport with a protocol
   * of its own; the in-memory transport has none).
   */
  reportsLeg?: boolean;
}

/** Call options with a recorder that keeps the backend legs it is told of. */
function recordingLegs(): {
  legs: TranslationLeg[];
  options: { contextValues: ReturnType<typeof createContextValues> };
} {
  const legs: TranslationLeg[] = [];
  const recorder = {
    client: { protocol: "kit", method: "call" },
    backend: (leg: TranslationLeg) => legs.push(leg),
    note: () => undefined,
  };
  return { legs, options: { contextValues: createContextValues().set(translationRecorderKey, recorder) } };
}

/** Collects a stream; stops after `limit` outputs. */
async function collect(stream: AsyncIterable<CodeOutput>, limit = Number.POSITIVE_INFINITY) {
  const outputs: CodeOutput[] = [];
  for await (const output of stream) {
    outputs.push(output);
    if (outputs.length >= limit) break;
  }
  return outputs;
}

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  try {
    await promise;
  } catch (error) {
    expect(error, `expected a TrestleError, got ${String(error)}`).toBeInstanceOf(TrestleError);
    return error as TrestleError;
  }
  throw new Error("expected the call to reject, but it resolved");
}

// 10 s: the service learns of a cancellation over the network, which a loaded 2-core CI machine can delay by
// seconds (seen: over 3 s at a load average of 19); a transport that never tells it still fails.
async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

function tool(
  uri: string,
  arguments_: ToolCall["arguments"] = {},
  extra: Partial<ToolReference> = {},
): ToolCall {
  return { tool: { name: "kit-tool", type: "kit", uri, ...extra }, arguments: arguments_ };
}

function code(language: string, args: Record<string, string> = {}): CodeRun {
  return { engineType: "kit", language, code: "", arguments: args };
}

/** The text of a result's only block, parsed as JSON. */
function echoed(content: ContentBlock[]) {
  expect(content).toHaveLength(1);
  const block = content[0];
  return JSON.parse(block?.type === "text" ? block.text : "{}");
}

/**
 * The transport test kit: a vitest suite that proves a {@link BridgeTransport} honours the protocol-neutral
 * contract — tool calls, resource reads, provisioning, streaming as output is produced, error mapping,
 * cancellation, deadlines, metadata, health and close — against a reference capability (neutral
 * {@link ServiceHandlers}) served by `options.serve`. What a wire adds (Wanaku's body and headers, MCP's rich
 * content) is tested by that transport's own tests.
 *
 * Call it at the top level of a test file.
 *
 * @example
 * ```ts
 * describeTransportContract({
 *   name: "my transport",
 *   createTransport: () => createMyTransport(),
 *   serve: (handlers) => startMyServer(handlers),
 *   deadTarget: () => ({ id: "dead", serviceName: "dead", host: "127.0.0.1", port: 1, serviceType: "tool-invoker" }),
 * });
 * ```
 */
export function describeTransportContract(options: TransportContractOptions): void {
  const can = {
    callFields: true,
    resources: true,
    resourceFields: true,
    serviceErrorCodes: true,
    allErrorCodes: true,
    healthStates: true,
    codeExecution: true,
    provisioning: true,
    reportsLeg: true,
    ...options.expresses,
  };
  /** `it` for a part of the contract the wire carries; nothing for a part it lacks (checked apart, below). */
  const itWhen = (carried: boolean) => (carried ? it : () => undefined);
  describe(`transport contract: ${options.name}`, () => {
    let transport: BridgeTransport;
    let capability: ReferenceCapability;
    let served: ServedCapability;
    let target: ServiceTarget;

    beforeEach(async () => {
      capability = createReferenceCapability();
      served = await options.serve(capability.handlers);
      target = served.target;
      transport = await options.createTransport();
    });

    afterEach(async () => {
      capability.openGate();
      await transport.close();
      await served.close();
    });

    it("calls a tool and carries every call field and the result", async () => {
      const result = await transport.callTool(
        tool(
          "echo://tool/{id}",
          { id: "42", city: "Zürich", empty: "" },
          { configurationURI: "file:///config", secretsURI: "file:///secret" },
        ),
        target,
        { requestId: "req-1" },
      );
      expect(result.isError ?? false).toBe(false);
      expect(echoed(result.content)).toMatchObject({
        uri: "echo://tool/{id}",
        arguments: { id: "42", city: "Zürich", empty: "" },
        ...(can.callFields
          ? { configurationUri: "file:///config", secretsUri: "file:///secret", requestId: "req-1" }
          : {}),
      });
    });

    itWhen(can.callFields)("sends the request id and caller metadata as call metadata", async () => {
      const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      const result = await transport.callTool(tool("echo://meta"), target, {
        requestId: "77",
        metadata: { traceparent, "X-Tenant": "acme" },
      });
      const seen = echoed(result.content);
      expect(seen.requestId).toBe("77");
      expect(seen.metadata.traceparent).toBe(traceparent);
      expect(seen.metadata["x-tenant"]).toBe("acme");
    });

    it("carries large and non-ASCII payloads intact", async () => {
      const text = "ü€😀".repeat(100_000);
      const result = await transport.callTool(tool("echo://big", { text }), target);
      expect(echoed(result.content).arguments.text).toBe(text);
    });

    it("serves concurrent calls each with its own result", async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => transport.callTool(tool("echo://c", { i: String(i) }), target)),
      );
      for (const [i, result] of results.entries()) {
        expect(echoed(result.content).arguments.i).toBe(String(i));
      }
    });

    itWhen(can.resources)("reads a resource with its params and the request id", async () => {
      const result = await transport.readResource(
        {
          resource: { location: "file:///tmp/{name}", type: "file", name: "a" },
          uri: "file:///tmp/a.txt",
          params: { p: "1" },
        },
        target,
        { requestId: "r9" },
      );
      const texts = result.contents.map((c) => ("text" in c ? c.text : c.blob));
      if (can.resourceFields) expect(texts).toEqual(["file:///tmp/a.txt", "file", "a", '{"p":"1"}', "r9"]);
      else expect(texts[0]).toBe("file:///tmp/a.txt");
      expect(result.contents.every((c) => c.uri === "file:///tmp/a.txt")).toBe(true);
    });

    itWhen(can.provisioning)("provisions configuration and secrets and returns the reference", async () => {
      const ref = await transport.provision(
        { name: "weather", configurationData: "units=metric", secretsData: "apiKey=s3cr3t" },
        target,
      );
      expect(ref).toEqual({
        configurationUri: "mem://config/weather",
        secretsUri: "mem://secret/weather",
        properties: { region: { type: "string", description: "Where to run", required: true } },
      });
      expect(capability.observations.provisions).toEqual([
        { name: "weather", configuration: "units=metric", secret: "apiKey=s3cr3t" },
      ]);
    });

    itWhen(can.reportsLeg)("reports the leg it speaks on each tool call and code execution", async () => {
      // A transport may report more than once (before and after it learns the backend's version): the last wins.
      const call = recordingLegs();
      await transport.callTool(tool("echo://leg"), target, call.options);
      const spoken = call.legs.at(-1);
      expect(spoken?.protocol).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(spoken?.method).toMatch(/\S/);
      if (!can.codeExecution) return;
      const run = recordingLegs();
      await collect(transport.executeCode(code("count", { n: "1" }), target, run.options));
      expect(run.legs.at(-1)?.protocol).toBe(spoken?.protocol);
    });

    itWhen(can.codeExecution)("streams code execution outputs in order with their fields", async () => {
      const outputs = await collect(transport.executeCode(code("count", { n: "3" }), target));
      expect(outputs).toEqual([
        { type: "status", status: "pending" },
        { type: "output", stream: "stdout", text: "line 0\n" },
        { type: "output", stream: "stdout", text: "line 1\n" },
        { type: "output", stream: "stdout", text: "line 2\n" },
        { type: "exit", status: "completed", exitCode: 0 },
      ]);
    });

    itWhen(can.codeExecution)(
      "delivers each stream output as it is produced, not when the stream ends",
      async () => {
        const iterator = transport.executeCode(code("gated"), target)[Symbol.asyncIterator]();
        expect((await iterator.next()).value).toEqual({ type: "status", status: "pending" });
        // The engine is now blocked on the gate: the first chunk must arrive anyway.
        expect((await iterator.next()).value).toEqual({ type: "output", stream: "stdout", text: "first\n" });
        capability.openGate();
        expect((await iterator.next()).value).toEqual({ type: "output", stream: "stdout", text: "second\n" });
        expect((await iterator.next()).value).toMatchObject({ type: "exit", status: "completed" });
        expect((await iterator.next()).done).toBe(true);
      },
    );

    const serviceErrors = (
      [
        ["InvalidArgument", Code.InvalidArgument],
        ["NotFound", Code.NotFound],
        ["FailedPrecondition", Code.FailedPrecondition],
        ["PermissionDenied", Code.PermissionDenied],
        ["Internal", Code.Internal],
        ["ResourceExhausted", Code.ResourceExhausted],
      ] as const
    ).filter(
      ([, code]) =>
        can.serviceErrorCodes &&
        (can.allErrorCodes || [Code.InvalidArgument, Code.NotFound, Code.Internal].includes(code)),
    );
    // it.each refuses an empty table: a wire without error codes checks its failures apart, below.
    if (serviceErrors.length > 0) {
      it.each(serviceErrors)(
        "maps a service error %s to its code with the service's message",
        async (name, expected) => {
          const error = await rejection(
            transport.callTool(tool(`fail://${name}/the%20service%20said%20no`), target),
          );
          expect(error.code).toBe(expected);
          expect(error.rawMessage).toContain("the service said no");
        },
      );
    }

    itWhen(can.serviceErrorCodes)(
      "maps an unexpected exception in the service to an error that keeps its message",
      async () => {
        const error = await rejection(transport.callTool(tool("throw://kaboom"), target));
        expect([Code.Internal, Code.Unknown]).toContain(error.code);
        expect(error.rawMessage).toContain("kaboom");
      },
    );

    itWhen(!can.serviceErrorCodes)(
      "reports a service error, or an exception in the service, as an isError result with its message",
      async () => {
        for (const [uri, said] of [
          ["fail://NotFound/the%20service%20said%20no", "the service said no"],
          ["throw://kaboom", "kaboom"],
        ] as const) {
          const result = await transport.callTool(tool(uri), target);
          expect(result.isError, uri).toBe(true);
          expect(result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n")).toContain(said);
        }
      },
    );

    it("answers Unimplemented for a service the capability does not offer", async () => {
      const callTool = capability.handlers.callTool;
      const bare = await options.serve(callTool ? { callTool } : {});
      try {
        const error = await rejection(
          transport.readResource(
            { resource: { location: "x://y", type: "kit", name: "x" }, uri: "x://y" },
            bare.target,
          ),
        );
        expect(error.code).toBe(Code.Unimplemented);
      } finally {
        await bare.close();
      }
    });

    itWhen(can.codeExecution)(
      "surfaces an engine failure mid-stream after the replies before it",
      async () => {
        const seen: CodeOutput[] = [];
        const error = await rejection(
          (async () => {
            for await (const output of transport.executeCode(code("fail-mid"), target)) seen.push(output);
          })(),
        );
        expect(seen).toContainEqual({ type: "output", stream: "stdout", text: "partial\n" });
        expect(error.code).toBe(Code.Internal);
        expect(error.rawMessage).toContain("engine crashed");
      },
    );

    it("cancels a unary call when the signal aborts, and the service sees it", async () => {
      const controller = new AbortController();
      const outcome = rejection(
        transport.callTool(tool("sleep://5000"), target, { signal: controller.signal }),
      );
      // Once the service runs it: a transport's first call may first connect (an MCP handshake takes 0.5 s loaded).
      await eventually(() => capability.observations.runningCalls.includes("sleep://5000"));
      controller.abort();
      const error = await outcome;
      expect(error.code).toBe(Code.Canceled);
      await eventually(() => capability.observations.abortedCalls.includes("sleep://5000"));
    });

    it("cancels a unary call given a cancellation instead of a signal, and the service sees it", async () => {
      // A caller on a hot path (the router's MCP front) gives `setCancellation`'s options: a transport reads them
      // through `cancellationOf`, or reads `signal`, which is then made from the cancellation.
      const cancellation = new CancellationController();
      const outcome = rejection(
        transport.callTool(tool("sleep://5000"), target, setCancellation({}, cancellation)),
      );
      await eventually(() => capability.observations.runningCalls.includes("sleep://5000"));
      cancellation.abort(new Error("the client went away"));
      const error = await outcome;
      expect(error.code).toBe(Code.Canceled);
      await eventually(() => capability.observations.abortedCalls.includes("sleep://5000"));
    });

    it("fails at once with Canceled when the call's cancellation is already aborted", async () => {
      const cancellation = new CancellationController();
      cancellation.abort();
      const started = Date.now();
      const error = await rejection(
        transport.callTool(tool("sleep://5000"), target, setCancellation({}, cancellation)),
      );
      expect(error.code).toBe(Code.Canceled);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it("fails with DeadlineExceeded when the service outlives the deadline, and the service sees it", async () => {
      const started = Date.now();
      const error = await rejection(transport.callTool(tool("sleep://5000"), target, { timeoutMs: 200 }));
      expect(error.code).toBe(Code.DeadlineExceeded);
      expect(Date.now() - started).toBeLessThan(4_000);
      await eventually(() => capability.observations.abortedCalls.includes("sleep://5000"));
    });

    itWhen(can.codeExecution)("applies the deadline to a whole stream", async () => {
      const error = await rejection(
        collect(transport.executeCode(code("endless"), target, { timeoutMs: 300 })),
      );
      expect(error.code).toBe(Code.DeadlineExceeded);
      await eventually(() => capability.observations.streamsFinished.includes("kit/endless"));
    });

    itWhen(can.codeExecution)("cancels a running stream on abort and stops the engine", async () => {
      const controller = new AbortController();
      const seen: CodeOutput[] = [];
      const error = await rejection(
        (async () => {
          for await (const output of transport.executeCode(code("endless"), target, {
            signal: controller.signal,
          })) {
            seen.push(output);
            if (seen.length === 3) controller.abort();
          }
        })(),
      );
      expect(error.code).toBe(Code.Canceled);
      await eventually(() => capability.observations.streamsFinished.includes("kit/endless"));
    });

    itWhen(can.codeExecution)(
      "cancels a running stream given a cancellation instead of a signal",
      async () => {
        const cancellation = new CancellationController();
        const seen: CodeOutput[] = [];
        const error = await rejection(
          (async () => {
            for await (const output of transport.executeCode(
              code("endless"),
              target,
              setCancellation({}, cancellation),
            )) {
              seen.push(output);
              if (seen.length === 3) cancellation.abort();
            }
          })(),
        );
        expect(error.code).toBe(Code.Canceled);
        await eventually(() => capability.observations.streamsFinished.includes("kit/endless"));
      },
    );

    itWhen(can.codeExecution)("stops the engine when the consumer breaks out of the stream", async () => {
      const outputs = await collect(transport.executeCode(code("endless"), target), 2);
      expect(outputs).toHaveLength(2);
      await eventually(() => capability.observations.streamsFinished.includes("kit/endless"));
    });

    it("fails fast with Unavailable when nothing listens at the target", async () => {
      const dead = await options.deadTarget();
      const started = Date.now();
      const error = await rejection(transport.callTool(tool("echo://x"), dead, { timeoutMs: 5_000 }));
      expect(error.code).toBe(Code.Unavailable);
      expect(Date.now() - started).toBeLessThan(4_000);
      if (!can.codeExecution) return;
      const streamError = await rejection(
        collect(transport.executeCode(code("count"), dead, { timeoutMs: 5_000 })),
      );
      expect(streamError.code).toBe(Code.Unavailable);
    });

    it("reports health from the probe, and down when unreachable", async () => {
      expect((await transport.probeHealth(target)).state).toBe("healthy");
      if (can.healthStates) {
        capability.health.state = "pending";
        expect((await transport.probeHealth(target)).state).toBe("pending");
        capability.health.state = "unhealthy";
        expect((await transport.probeHealth(target)).state).toBe("unhealthy");
      }
      expect((await transport.probeHealth(await options.deadTarget(), { timeoutMs: 3_000 })).state).toBe(
        "down",
      );
    });

    it("treats a service without a health probe that answers as healthy", async () => {
      const callTool = capability.handlers.callTool;
      const noProbe = await options.serve(callTool ? { callTool } : {});
      try {
        expect((await transport.probeHealth(noProbe.target)).state).toBe("healthy");
      } finally {
        await noProbe.close();
      }
    });

    it("rejects calls with Unavailable after close, and close is idempotent", async () => {
      await transport.callTool(tool("echo://before"), target);
      await transport.close();
      await transport.close();
      const error = await rejection(transport.callTool(tool("echo://after"), target));
      expect(error.code).toBe(Code.Unavailable);
    });

    itWhen(!can.codeExecution || !can.provisioning || !can.resources)(
      "refuses what its wire cannot carry with Unimplemented, naming the method",
      async () => {
        if (!can.resources) {
          const error = await rejection(
            transport.readResource(
              { resource: { location: "file:///a", type: "file", name: "a" }, uri: "file:///a" },
              target,
            ),
          );
          expect(error.code).toBe(Code.Unimplemented);
          // The neutral method's name, or the MCP method a reader of the message may know better.
          expect(error.rawMessage).toMatch(/readResource|resources\/read/);
        }
        if (!can.codeExecution) {
          const error = await rejection(collect(transport.executeCode(code("count"), target)));
          expect(error.code).toBe(Code.Unimplemented);
          expect(error.rawMessage).toContain("executeCode");
        }
        if (!can.provisioning) {
          const error = await rejection(
            transport.provision({ name: "w", configurationData: "", secretsData: "" }, target),
          );
          expect(error.code).toBe(Code.Unimplemented);
          expect(error.rawMessage).toContain("provision");
        }
      },
    );
  });
}
