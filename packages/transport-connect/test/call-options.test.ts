import { create } from "@bufbuild/protobuf";
import { type CapabilityServer, createCapabilityServer } from "@trestle/capability";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import { CodeExecutionRequestSchema, ToolInvokeRequestSchema } from "@trestle/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createConnectWanakuTransport } from "../src/index.js";

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TrestleError);
  return error as TrestleError;
}

/** A tool that answers after `uri` milliseconds, and a stream that ticks until cancelled. */
describe("connect transport deadlines and metadata", () => {
  let server: CapabilityServer;
  let target: ServiceTarget;

  beforeEach(async () => {
    server = createCapabilityServer({
      async toolInvoker(request, context) {
        await sleep(Number(request.uri), context.signal);
        return { content: ["done"] };
      },
      async *codeExecutor(_request, context) {
        for (;;) {
          yield { content: ["tick"] };
          await sleep(20, context.signal);
        }
      },
    });
    const { host, port } = await server.listen();
    target = {
      id: "slow",
      serviceName: "slow",
      host,
      port,
      serviceType: "multi-capability",
      protocol: "connect",
    };
  });

  afterEach(async () => {
    await server.close();
  });

  const tool = (ms: number) => create(ToolInvokeRequestSchema, { uri: String(ms) });

  it("applies per-service deadlines, and a call's own timeoutMs wins over them", async () => {
    const transport = createConnectWanakuTransport({
      timeouts: (t) => (t.serviceName === "slow" ? { unaryMs: 100, streamMs: 150 } : undefined),
    });
    try {
      expect((await rejection(transport.invokeTool(tool(2_000), target))).code).toBe(Code.DeadlineExceeded);
      expect((await transport.invokeTool(tool(300), target, { timeoutMs: 3_000 })).content).toEqual(["done"]);
      const stream = (async () => {
        for await (const _ of transport.executeCode(create(CodeExecutionRequestSchema, {}), target)) {
          // ticking until the per-service stream deadline
        }
      })();
      expect((await rejection(stream)).code).toBe(Code.DeadlineExceeded);
      expect((await transport.invokeTool(tool(300), { ...target, serviceName: "other" })).content).toEqual([
        "done",
      ]);
    } finally {
      await transport.close();
    }
  });

  it("applies the transport's default deadlines", async () => {
    const transport = createConnectWanakuTransport({ unaryTimeoutMs: 100 });
    try {
      const started = Date.now();
      expect((await rejection(transport.invokeTool(tool(2_000), target))).code).toBe(Code.DeadlineExceeded);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await transport.close();
    }
  });

  it("refuses metadata that cannot be a header, without echoing its value", async () => {
    const transport = createConnectWanakuTransport();
    try {
      const error = await rejection(
        transport.invokeTool(tool(0), target, { metadata: { "bad header": "s3cr3t\n" } }),
      );
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.message).not.toContain("s3cr3t");
    } finally {
      await transport.close();
    }
  });

  it("rejects a stream with Unavailable after close", async () => {
    const transport = createConnectWanakuTransport();
    await transport.close();
    const error = await rejection(
      (async () => {
        for await (const _ of transport.executeCode(create(CodeExecutionRequestSchema, {}), target)) {
          // nothing arrives
        }
      })(),
    );
    expect(error.code).toBe(Code.Unavailable);
    expect((await transport.probeHealth(target)).state).toBe("down");
  });
});
