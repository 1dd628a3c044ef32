import { create } from "@bufbuild/protobuf";
import {
  type CodeExecutionReply,
  CodeExecutionRequestSchema,
  ExecutionStatus,
  OutputType,
  PayloadType,
  ResourceRequestSchema,
  RuntimeStatus,
  type ToolInvokeRequest,
  ToolInvokeRequestSchema,
} from "@trestle/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REQUEST_ID_METADATA_KEY } from "../call-options.js";
import type { CapabilityHandlers } from "../capability-handlers.js";
import { Code, TrestleError } from "../error.js";
import type { ServedCapability } from "../in-memory-transport.js";
import type { ServiceTarget } from "../service-target.js";
import type { BridgeTransport } from "../transport.js";
import { createReferenceCapability, type ReferenceCapability } from "./reference-capability.js";

/** How the kit reaches the implementation under test. */
export interface TransportContractOptions {
  /** Names the suite, e.g. `"grpc transport ↔ capability SDK"`. */
  name: string;
  /** A new transport under test. The kit closes it after each test. */
  createTransport(): BridgeTransport | Promise<BridgeTransport>;
  /**
   * Serves the handlers as a capability service the transport can reach, in this process (the kit observes
   * the handlers' side effects), and returns its target.
   */
  serve(handlers: CapabilityHandlers): Promise<ServedCapability> | ServedCapability;
  /** A target on which nothing listens. */
  deadTarget(): ServiceTarget | Promise<ServiceTarget>;
}

/** Collects a stream; stops after `limit` replies. */
async function collect(stream: AsyncIterable<CodeExecutionReply>, limit = Number.POSITIVE_INFINITY) {
  const replies: CodeExecutionReply[] = [];
  for await (const reply of stream) {
    replies.push(reply);
    if (replies.length >= limit) break;
  }
  return replies;
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

async function eventually(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

function tool(uri: string, extra: Omit<Partial<ToolInvokeRequest>, "uri" | "$typeName" | "$unknown"> = {}) {
  return create(ToolInvokeRequestSchema, { uri, ...extra });
}

function code(language: string, args: Record<string, string> = {}) {
  return create(CodeExecutionRequestSchema, {
    uri: `code-execution-engine://kit/${language}`,
    arguments: args,
  });
}

/**
 * The transport test kit: a vitest suite that proves a {@link BridgeTransport} honours the contract — unary
 * calls, streaming as output is produced, error mapping, cancellation, deadlines, metadata, health and close —
 * against a reference capability served by `options.serve`.
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

    it("invokes a tool and carries every request field and the reply", async () => {
      const reply = await transport.invokeTool(
        tool("echo://tool/{id}", {
          body: '{"x":1}',
          arguments: { id: "42", city: "Zürich", empty: "" },
          headers: { "X-Custom": "h" },
          configurationUri: "file:///config",
          secretsUri: "file:///secret",
          requestId: "req-1",
        }),
        target,
      );
      expect(reply.content).toHaveLength(1);
      const seen = JSON.parse(reply.content[0] ?? "{}");
      expect(seen).toMatchObject({
        uri: "echo://tool/{id}",
        body: '{"x":1}',
        arguments: { id: "42", city: "Zürich", empty: "" },
        headers: { "X-Custom": "h" },
        configurationUri: "file:///config",
        secretsUri: "file:///secret",
        requestId: "req-1",
      });
    });

    it("sends the request id and caller metadata as call metadata", async () => {
      const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      const reply = await transport.invokeTool(tool("echo://meta"), target, {
        requestId: "77",
        metadata: { traceparent, "X-Tenant": "acme" },
      });
      const seen = JSON.parse(reply.content[0] ?? "{}");
      expect(seen.contextRequestId).toBe("77");
      expect(seen.metadata[REQUEST_ID_METADATA_KEY]).toBe("77");
      expect(seen.metadata.traceparent).toBe(traceparent);
      expect(seen.metadata["x-tenant"]).toBe("acme");
    });

    it("carries large and non-ASCII payloads intact", async () => {
      const body = "ü€😀".repeat(100_000);
      const reply = await transport.invokeTool(tool("echo://big", { body }), target);
      expect(JSON.parse(reply.content[0] ?? "{}").body).toBe(body);
    });

    it("serves concurrent calls each with its own reply", async () => {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          transport.invokeTool(tool("echo://c", { arguments: { i: String(i) } }), target),
        ),
      );
      for (const [i, reply] of replies.entries()) {
        expect(JSON.parse(reply.content[0] ?? "{}").arguments.i).toBe(String(i));
      }
    });

    it("acquires a resource", async () => {
      const reply = await transport.acquireResource(
        create(ResourceRequestSchema, {
          location: "file:///tmp/a.txt",
          type: "file",
          name: "a",
          params: { p: "1" },
          requestId: "r9",
        }),
        target,
      );
      expect(reply.content).toEqual(["file:///tmp/a.txt", "file", "a", '{"p":"1"}', "r9"]);
    });

    it("provisions configuration and secrets as BUILTIN payloads and returns the reference", async () => {
      const ref = await transport.provision("weather", "units=metric", "apiKey=s3cr3t", target);
      expect(ref).toEqual({
        configurationUri: "mem://config/weather",
        secretsUri: "mem://secret/weather",
        properties: { region: { type: "string", description: "Where to run", required: true } },
      });
      expect(capability.observations.provisions).toEqual([
        {
          name: "weather",
          configuration: "units=metric",
          secret: "apiKey=s3cr3t",
          configurationType: PayloadType.BUILTIN,
          secretType: PayloadType.BUILTIN,
        },
      ]);
    });

    it("streams code execution replies in order with their fields", async () => {
      const replies = await collect(transport.executeCode(code("count", { n: "3" }), target));
      expect(replies.map((r) => r.status)).toEqual([
        ExecutionStatus.PENDING,
        ExecutionStatus.RUNNING,
        ExecutionStatus.RUNNING,
        ExecutionStatus.RUNNING,
        ExecutionStatus.COMPLETED,
      ]);
      expect(replies.slice(1, 4).map((r) => r.content[0])).toEqual(["line 0\n", "line 1\n", "line 2\n"]);
      expect(replies[1]?.outputType).toBe(OutputType.STDOUT);
      expect(replies[1]?.timestamp?.seconds).toBeGreaterThan(0n);
      const last = replies.at(-1);
      expect(last?.outputType).toBe(OutputType.COMPLETION);
      expect(last?.exitCode).toBe(0);
      expect(replies[1]?.exitCode).toBeUndefined();
    });

    it("delivers each stream reply as it is produced, not when the stream ends", async () => {
      const iterator = transport.executeCode(code("gated"), target)[Symbol.asyncIterator]();
      expect((await iterator.next()).value?.status).toBe(ExecutionStatus.PENDING);
      // The engine is now blocked on the gate: the first chunk must arrive anyway.
      expect((await iterator.next()).value?.content).toEqual(["first\n"]);
      capability.openGate();
      expect((await iterator.next()).value?.content).toEqual(["second\n"]);
      expect((await iterator.next()).value?.status).toBe(ExecutionStatus.COMPLETED);
      expect((await iterator.next()).done).toBe(true);
    });

    it.each([
      ["InvalidArgument", Code.InvalidArgument],
      ["NotFound", Code.NotFound],
      ["FailedPrecondition", Code.FailedPrecondition],
      ["PermissionDenied", Code.PermissionDenied],
      ["Internal", Code.Internal],
      ["ResourceExhausted", Code.ResourceExhausted],
    ])("maps a service error %s to its code with the service's message", async (name, expected) => {
      const error = await rejection(
        transport.invokeTool(tool(`fail://${name}/the%20service%20said%20no`), target),
      );
      expect(error.code).toBe(expected);
      expect(error.rawMessage).toContain("the service said no");
    });

    it("maps an unexpected exception in the service to an error that keeps its message", async () => {
      const error = await rejection(transport.invokeTool(tool("throw://kaboom"), target));
      expect([Code.Internal, Code.Unknown]).toContain(error.code);
      expect(error.rawMessage).toContain("kaboom");
    });

    it("answers Unimplemented for a service the capability does not offer", async () => {
      const bare = await options.serve({ toolInvoker: capability.handlers.toolInvoker });
      try {
        const error = await rejection(
          transport.acquireResource(create(ResourceRequestSchema, { location: "x" }), bare.target),
        );
        expect(error.code).toBe(Code.Unimplemented);
      } finally {
        await bare.close();
      }
    });

    it("surfaces an engine failure mid-stream after the replies before it", async () => {
      const seen: CodeExecutionReply[] = [];
      const error = await rejection(
        (async () => {
          for await (const reply of transport.executeCode(code("fail-mid"), target)) seen.push(reply);
        })(),
      );
      expect(seen.map((r) => r.content[0])).toContain("partial\n");
      expect(error.code).toBe(Code.Internal);
      expect(error.rawMessage).toContain("engine crashed");
    });

    it("cancels a unary call when the signal aborts, and the service sees it", async () => {
      const controller = new AbortController();
      const call = transport.invokeTool(tool("sleep://5000"), target, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      const error = await rejection(call);
      expect(error.code).toBe(Code.Canceled);
      await eventually(() => capability.observations.abortedCalls.includes("sleep://5000"));
    });

    it("fails with DeadlineExceeded when the service outlives the deadline, and the service sees it", async () => {
      const started = Date.now();
      const error = await rejection(transport.invokeTool(tool("sleep://5000"), target, { timeoutMs: 200 }));
      expect(error.code).toBe(Code.DeadlineExceeded);
      expect(Date.now() - started).toBeLessThan(4_000);
      await eventually(() => capability.observations.abortedCalls.includes("sleep://5000"));
    });

    it("applies the deadline to a whole stream", async () => {
      const error = await rejection(
        collect(transport.executeCode(code("endless"), target, { timeoutMs: 300 })),
      );
      expect(error.code).toBe(Code.DeadlineExceeded);
      await eventually(() =>
        capability.observations.streamsFinished.includes("code-execution-engine://kit/endless"),
      );
    });

    it("cancels a running stream on abort and stops the engine", async () => {
      const controller = new AbortController();
      const seen: CodeExecutionReply[] = [];
      const error = await rejection(
        (async () => {
          for await (const reply of transport.executeCode(code("endless"), target, {
            signal: controller.signal,
          })) {
            seen.push(reply);
            if (seen.length === 3) controller.abort();
          }
        })(),
      );
      expect(error.code).toBe(Code.Canceled);
      await eventually(() =>
        capability.observations.streamsFinished.includes("code-execution-engine://kit/endless"),
      );
    });

    it("stops the engine when the consumer breaks out of the stream", async () => {
      const replies = await collect(transport.executeCode(code("endless"), target), 2);
      expect(replies).toHaveLength(2);
      await eventually(() =>
        capability.observations.streamsFinished.includes("code-execution-engine://kit/endless"),
      );
    });

    it("fails fast with Unavailable when nothing listens at the target", async () => {
      const dead = await options.deadTarget();
      const started = Date.now();
      const error = await rejection(transport.invokeTool(tool("echo://x"), dead, { timeoutMs: 5_000 }));
      expect(error.code).toBe(Code.Unavailable);
      expect(Date.now() - started).toBeLessThan(4_000);
      const streamError = await rejection(
        collect(transport.executeCode(code("count"), dead, { timeoutMs: 5_000 })),
      );
      expect(streamError.code).toBe(Code.Unavailable);
    });

    it("reports health from the probe, and down when unreachable", async () => {
      expect((await transport.probeHealth(target)).state).toBe("healthy");
      capability.health.status = RuntimeStatus.STARTING;
      expect((await transport.probeHealth(target)).state).toBe("pending");
      capability.health.status = RuntimeStatus.STOPPED;
      expect((await transport.probeHealth(target)).state).toBe("unhealthy");
      expect((await transport.probeHealth(await options.deadTarget(), { timeoutMs: 3_000 })).state).toBe(
        "down",
      );
    });

    it("treats a service without a health probe that answers as healthy", async () => {
      const noProbe = await options.serve({ toolInvoker: capability.handlers.toolInvoker });
      try {
        expect((await transport.probeHealth(noProbe.target)).state).toBe("healthy");
      } finally {
        await noProbe.close();
      }
    });

    it("rejects calls with Unavailable after close, and close is idempotent", async () => {
      await transport.invokeTool(tool("echo://before"), target);
      await transport.close();
      await transport.close();
      const error = await rejection(transport.invokeTool(tool("echo://after"), target));
      expect(error.code).toBe(Code.Unavailable);
    });
  });
}
