import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { type Cancellation, Code, TrestleError } from "@trestle/core";
import { CancellationController } from "@trestle/core/cancellation";
import {
  CodeExecutionRequestSchema,
  ExecutionStatus,
  OutputType,
  ToolInvokeRequestSchema,
} from "@trestle/proto";
import type { CapabilityHandlers, WanakuTransport } from "@trestle/wanaku";
import { afterEach, describe, expect, it } from "vitest";
import { createGrpcWanakuTransport, type GrpcTransportOptions } from "../src/index.js";
import { deadTarget } from "./support/dead-target.js";
import {
  type ObservedCall,
  type ProtoLoaderServer,
  serveWithProtoLoader,
} from "./support/proto-loader-server.js";

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  const outcome = await promise.then(
    () => new Error("expected the call to reject, but it resolved"),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(TrestleError);
  return outcome as TrestleError;
}

/** Resolves when `signal` aborts; rejects after `ms` so that no wait is unbounded. */
function aborted(signal: AbortSignal, ms = 5_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => reject(new Error(`not aborted within ${ms} ms`)), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const tool = (uri: string, requestId = "") => create(ToolInvokeRequestSchema, { uri, requestId });
const code = () => create(CodeExecutionRequestSchema, { uri: "code-execution-engine://test/ticks" });

/** A server whose tool sleeps until aborted and whose engine ticks until stopped, recording what it saw. */
function sleepyHandlers() {
  const seen = {
    toolAborted: new AbortController(),
    engineStopped: new AbortController(),
    ticks: 0,
  };
  const handlers: CapabilityHandlers = {
    async toolInvoker(request, context) {
      if (request.uri === "echo://") return { content: [context.requestId] };
      await aborted(context.signal, 30_000).catch(() => undefined);
      seen.toolAborted.abort();
      return { content: ["late"] };
    },
    async *codeExecutor(_request, context) {
      try {
        while (!context.signal.aborted) {
          seen.ticks++;
          yield {
            content: [`tick ${seen.ticks}\n`],
            outputType: OutputType.STDOUT,
            status: ExecutionStatus.RUNNING,
            timestamp: timestampFromMs(Date.now()),
          };
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        seen.engineStopped.abort();
      }
    },
  };
  return { handlers, seen };
}

describe("deadlines, cancellation and dead ports", () => {
  let server: ProtoLoaderServer | undefined;
  let transport: WanakuTransport | undefined;
  const calls: ObservedCall[] = [];

  async function setUp(options: GrpcTransportOptions = {}) {
    const { handlers, seen } = sleepyHandlers();
    server = await serveWithProtoLoader(handlers, { onCall: (call) => calls.push(call) });
    transport = createGrpcWanakuTransport(options);
    return { target: server.target, seen, transport };
  }

  afterEach(async () => {
    await transport?.close();
    await server?.close();
    calls.length = 0;
  });

  it("fails fast with Unavailable on a dead port, without waiting for the default deadline", async () => {
    transport = createGrpcWanakuTransport();
    const dead = await deadTarget();
    const started = Date.now();
    expect((await rejection(transport.invokeTool(tool("echo://"), dead))).code).toBe(Code.Unavailable);
    const stream = (async () => {
      for await (const _ of transport.executeCode(code(), dead));
    })();
    expect((await rejection(stream)).code).toBe(Code.Unavailable);
    expect((await transport.probeHealth(dead)).state).toBe("down");
    // The default unary deadline is 10 s; a refused connection must not take anywhere near that.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("reaches a service that starts on a once-dead port after the reconnect backoff", async () => {
    const dead = await deadTarget();
    const t = createGrpcWanakuTransport({ channelOptions: { "grpc.initial_reconnect_backoff_ms": 100 } });
    transport = t;
    expect((await rejection(t.invokeTool(tool("echo://"), dead))).code).toBe(Code.Unavailable);
    server = await serveWithProtoLoader(sleepyHandlers().handlers, { port: dead.port });
    const until = Date.now() + 5_000;
    let reply: unknown;
    while (reply === undefined && Date.now() < until) {
      reply = await t.invokeTool(tool("echo://", "back"), dead).catch(async (error: unknown) => {
        expect(TrestleError.from(error).code).toBe(Code.Unavailable);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return undefined;
      });
    }
    expect(reply).toMatchObject({ content: ["back"] });
  });

  it("yields DeadlineExceeded when the service sleeps past a per-service deadline, and the service sees it", async () => {
    const {
      target,
      seen,
      transport: t,
    } = await setUp({
      timeouts: (t) => (t.serviceName === "kit" ? { unaryMs: 200 } : undefined),
    });
    const started = Date.now();
    const error = await rejection(t.invokeTool(tool("sleep://"), target));
    expect(error.code).toBe(Code.DeadlineExceeded);
    expect(Date.now() - started).toBeLessThan(3_000);
    await aborted(seen.toolAborted.signal);
  });

  it("lets CallOptions.timeoutMs win over the per-service deadline", async () => {
    const { target, transport: t } = await setUp({ timeouts: () => ({ unaryMs: 60_000 }) });
    expect((await rejection(t.invokeTool(tool("sleep://"), target, { timeoutMs: 150 }))).code).toBe(
      Code.DeadlineExceeded,
    );
    expect(calls[0]?.deadlineInMs).toBeLessThanOrEqual(150);
  });

  it("sends the default deadlines (10 s unary, 20 s streaming) and per-service stream deadlines", async () => {
    const { target, transport: t } = await setUp();
    await t.invokeTool(tool("echo://"), target);
    const stream = t.executeCode(code(), target)[Symbol.asyncIterator]();
    await stream.next();
    await stream.return?.();
    expect(calls.map((c) => c.path)).toEqual([
      "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool",
      "/ai.wanaku.codeexecution.v1.CodeExecutor/ExecuteCode",
    ]);
    expect(calls[0]?.deadlineInMs).toBeGreaterThan(8_000);
    expect(calls[0]?.deadlineInMs).toBeLessThanOrEqual(10_000);
    expect(calls[1]?.deadlineInMs).toBeGreaterThan(18_000);
    expect(calls[1]?.deadlineInMs).toBeLessThanOrEqual(20_000);

    const perService = createGrpcWanakuTransport({ timeouts: () => ({ streamMs: 3_000 }) });
    try {
      const again = perService.executeCode(code(), target)[Symbol.asyncIterator]();
      await again.next();
      await again.return?.();
      expect(calls[2]?.deadlineInMs).toBeGreaterThan(1_000);
      expect(calls[2]?.deadlineInMs).toBeLessThanOrEqual(3_000);
    } finally {
      await perService.close();
    }
  });

  it("aborting mid-stream cancels the call and stops the server-side generator", async () => {
    const { target, seen, transport: t } = await setUp();
    const controller = new AbortController();
    let received = 0;
    const error = await rejection(
      (async () => {
        for await (const _ of t.executeCode(code(), target, { signal: controller.signal })) {
          received++;
          if (received === 3) controller.abort();
        }
      })(),
    );
    expect(error.code).toBe(Code.Canceled);
    await aborted(seen.engineStopped.signal);
    // The engine stopped: it produces nothing more once cancelled.
    const ticksAtStop = seen.ticks;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.ticks).toBe(ticksAtStop);
  });

  it("breaking out of the iteration stops the server-side generator too", async () => {
    const { target, seen, transport: t } = await setUp();
    for await (const reply of t.executeCode(code(), target)) {
      expect(reply.content[0]).toBe("tick 1\n");
      break;
    }
    await aborted(seen.engineStopped.signal);
  });

  for (const client of ["http2", "grpc-js"] as const) {
    it(`subscribes to a call's cancellation and makes no AbortSignal for it (${client} client)`, async () => {
      const { target, seen, transport: t } = await setUp({ client });
      // A cancellation that counts what the client does with it, and fails the call if it asks for a signal.
      const controller = new CancellationController();
      const subscribed = { on: 0, off: 0 };
      const counting: Cancellation = {
        get aborted() {
          return controller.aborted;
        },
        get reason() {
          return controller.reason;
        },
        get signal(): AbortSignal {
          throw new Error("the transport made an AbortSignal");
        },
        onAbort(listener) {
          subscribed.on++;
          controller.onAbort(listener);
        },
        offAbort(listener) {
          subscribed.off++;
          controller.offAbort(listener);
        },
      };
      const options = () => ({ cancellation: counting });
      expect(await t.invokeTool(tool("echo://", "9"), target, options())).toMatchObject({ content: ["9"] });
      expect(subscribed).toEqual({ on: 1, off: 1 });
      const sleeping = t.invokeTool(tool("sleep://"), target, options());
      setTimeout(() => controller.abort(new Error("the client went away")), 100);
      expect((await rejection(sleeping)).code).toBe(Code.Canceled);
      await aborted(seen.toolAborted.signal);
    });
  }

  it("does not send a call whose signal is already aborted", async () => {
    const { target, transport: t } = await setUp();
    const error = await rejection(t.invokeTool(tool("echo://"), target, { signal: AbortSignal.abort() }));
    expect(error.code).toBe(Code.Canceled);
    expect(calls).toHaveLength(0);
  });

  it("sends the request's request_id as metadata when the call options carry none", async () => {
    const { target, transport: t } = await setUp();
    const reply = await t.invokeTool(tool("echo://", "from-request"), target);
    expect(reply.content).toEqual(["from-request"]);
    expect(calls[0]?.metadata["x-wanaku-request-id"]).toBe("from-request");
    const preferred = await t.invokeTool(tool("echo://", "from-request"), target, {
      requestId: "mcp-7",
    });
    expect(preferred.content).toEqual(["mcp-7"]);
  });

  it("rejects illegal metadata with InvalidArgument without echoing its value", async () => {
    const { target, transport: t } = await setUp();
    const error = await rejection(
      t.invokeTool(tool("echo://"), target, { metadata: { authorization: "Bearer s3cr3t\n" } }),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.message).toContain("authorization");
    expect(error.message).not.toContain("s3cr3t");
  });

  it("refuses a reply larger than maxReceiveMessageBytes with ResourceExhausted", async () => {
    const { target, transport: t } = await setUp({ maxReceiveMessageBytes: 1_024 });
    const big = create(ToolInvokeRequestSchema, { uri: "echo://", requestId: "x".repeat(4_096) });
    expect((await rejection(t.invokeTool(big, target))).code).toBe(Code.ResourceExhausted);
  });
});
