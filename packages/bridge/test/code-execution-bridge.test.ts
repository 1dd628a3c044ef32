import { Code, type CodeOutput, TrestleError } from "@trestle/core";
import type { ToolCallEvent } from "@trestle/core/events";
import { type CodeExecutionRequest, ExecutionStatus, OutputType } from "@trestle/proto";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { createWanakuReferenceCapability, type WanakuReferenceCapability } from "@trestle/wanaku/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CodeExecutionBridge, createCodeExecutionBridge } from "../src/index.js";
import { createHarness, type Harness } from "./harness.js";

const utf8Base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** The text an output carries ("" when none). */
function textOf(output: CodeOutput | undefined): string {
  if (!output) return "";
  return output.type === "output" ? output.text : (output.text ?? "");
}

let harness: Harness;
let capability: WanakuReferenceCapability;
let bridge: CodeExecutionBridge;

function engine(language: string, handlers: CapabilityHandlers = capability.handlers) {
  return harness.serve(handlers, {
    serviceName: "kit-engine",
    serviceType: "code-execution-engine",
    serviceSubType: "kit",
    languageName: language,
  });
}

function types(): string[] {
  return harness.events.map((e) => e.type);
}

function terminal(): ToolCallEvent {
  const ends = harness.events.filter((e) => e.type !== "started");
  expect(ends, "exactly one terminal event").toHaveLength(1);
  return ends[0] as ToolCallEvent;
}

async function drain(stream: AsyncIterable<CodeOutput>): Promise<{ replies: CodeOutput[]; error?: unknown }> {
  const replies: CodeOutput[] = [];
  try {
    for await (const reply of stream) replies.push(reply);
    return { replies };
  } catch (error) {
    return { replies, error };
  }
}

beforeEach(() => {
  harness = createHarness();
  capability = createWanakuReferenceCapability();
  bridge = createCodeExecutionBridge(harness.deps);
});

afterEach(async () => {
  capability.openGate();
  await harness.close();
});

describe("execute: routing and the request on the wire", () => {
  it("resolves by engine type and language and sends the built request", async () => {
    let seen: CodeExecutionRequest | undefined;
    engine("python", {
      async *codeExecutor(request) {
        seen = request;
        yield { content: ["ok"], status: ExecutionStatus.COMPLETED, exitCode: 0 };
      },
    });
    await drain(
      bridge.execute("kit", "python", { code: utf8Base64("print(1)"), arguments: ["x"] }, { requestId: "4" }),
    );
    expect(harness.resolver.asked).toEqual(["code-execution-engine/kit/python"]);
    expect(seen).toMatchObject({
      uri: "code-execution-engine://kit/python",
      code: "print(1)",
      arguments: { arg0: "x" },
      requestId: "4",
    });
  });

  it("fails with NotFound naming both the engine type and the language when no engine runs them", async () => {
    engine("python");
    const { error } = await drain(bridge.execute("kit", "cobol", { code: "" }));
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.NotFound);
    expect((error as TrestleError).rawMessage).toMatch(/engine type 'kit' and language 'cobol'/);
    expect(types()).toEqual(["started", "failed"]);
    expect(terminal()).toMatchObject({ errorCategory: "tool_definition_error" });
  });

  it("does nothing until the iteration starts", async () => {
    engine("count");
    bridge.execute("kit", "count", { code: "" });
    expect(harness.resolver.asked).toEqual([]);
    expect(harness.events).toEqual([]);
  });
});

describe("execute: replies stream as the engine produces them", () => {
  it("delivers the first chunk before the engine finishes", async () => {
    engine("gated");
    const iterator = bridge.execute("kit", "gated", { code: "" })[Symbol.asyncIterator]();
    const seen: string[] = [];
    for (;;) {
      const next = await iterator.next();
      if (next.done) throw new Error("the stream ended before its first chunk");
      seen.push(textOf(next.value));
      if (seen.includes("first\n")) break;
    }
    // The engine is parked on its gate: nothing after the first chunk exists yet, and the call has not ended.
    expect(capability.observations.streamsFinished).toEqual([]);
    expect(types()).toEqual(["started"]);
    capability.openGate();
    const rest: string[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      rest.push(textOf(next.value));
    expect(rest).toContain("second\n");
    expect(types()).toEqual(["started", "completed"]);
  });
});

describe("execute: the terminal event is emitted exactly once", () => {
  it("on a normal end: COMPLETED with its duration", async () => {
    engine("count", {
      async *codeExecutor(request, context) {
        const reference = capability.handlers.codeExecutor;
        if (!reference) throw new Error("the reference capability executes code");
        for await (const reply of reference(request, context)) {
          harness.advance(5);
          yield reply;
        }
      },
    });
    const { replies, error } = await drain(
      bridge.execute("kit", "count", { code: "", arguments: { n: "3" } }),
    );
    expect(error).toBeUndefined();
    expect(replies.filter((r) => r.type === "output" && r.stream === "stdout").map(textOf)).toEqual([
      "line 0\n",
      "line 1\n",
      "line 2\n",
    ]);
    expect(types()).toEqual(["started", "completed"]);
    expect(terminal()).toMatchObject({
      type: "completed",
      eventId: harness.events[0]?.eventId,
      duration: 25,
    });
  });

  it("on an engine error mid-stream: the chunks before it, then FAILED execution_error", async () => {
    engine("fail-mid");
    const { replies, error } = await drain(bridge.execute("kit", "fail-mid", { code: "" }));
    expect(replies.map(textOf)).toContain("partial\n");
    expect((error as TrestleError).code).toBe(Code.Internal);
    expect((error as TrestleError).rawMessage).toBe("engine crashed");
    expect(types()).toEqual(["started", "failed"]);
    expect(terminal()).toMatchObject({ errorCategory: "execution_error", errorMessage: "engine crashed" });
  });

  it("on a transport failure: FAILED service_unavailable, naming the service", async () => {
    harness.resolver.targets.push({
      id: "gone",
      serviceName: "kit-engine",
      host: "nowhere",
      port: 9,
      serviceType: "code-execution-engine",
      serviceSubType: "kit",
      languageName: "count",
    });
    const { error } = await drain(bridge.execute("kit", "count", { code: "" }));
    expect((error as TrestleError).code).toBe(Code.Unavailable);
    expect((error as TrestleError).rawMessage).toMatch(
      /^The capability service 'kit-engine' at nowhere:9 is unavailable/,
    );
    expect(types()).toEqual(["started", "failed"]);
    expect(terminal()).toMatchObject({ errorCategory: "service_unavailable" });
    expect(harness.outcomes.log).toEqual(["started:gone", "ended:gone:true"]);
  });

  it("when the consumer breaks after the first chunk: FAILED none, cancelled by the client, engine stopped", async () => {
    engine("gated");
    for await (const reply of bridge.execute("kit", "gated", { code: "" })) {
      if (textOf(reply) === "first\n") break;
    }
    expect(types()).toEqual(["started", "failed"]);
    expect(terminal()).toMatchObject({
      errorCategory: "none",
      errorMessage: "The code execution was cancelled by the client",
    });
    await expect.poll(() => capability.observations.streamsFinished).toEqual(["kit/gated"]);
  });

  it("when the call is aborted while the consumer waits: FAILED none, and the iteration throws Canceled", async () => {
    engine("gated");
    const controller = new AbortController();
    const iterator = bridge
      .execute("kit", "gated", { code: "" }, { signal: controller.signal })
      [Symbol.asyncIterator]();
    while (textOf((await iterator.next()).value) !== "first\n") {
      // skip the PENDING status reply
    }
    const waiting = iterator.next();
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: Code.Canceled });
    expect(types()).toEqual(["started", "failed"]);
    expect(terminal()).toMatchObject({ errorCategory: "none" });
    await expect.poll(() => capability.observations.streamsFinished).toHaveLength(1);
  });

  it("when the call is aborted while the consumer is not reading: ended at once, not again on return()", async () => {
    engine("gated");
    const controller = new AbortController();
    const iterator = bridge
      .execute("kit", "gated", { code: "" }, { signal: controller.signal })
      [Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    expect(types()).toEqual(["started", "failed"]);
    await iterator.return?.();
    expect(types()).toEqual(["started", "failed"]);
  });

  it("when the engine deadline passes: input timeout plus the grace, FAILED service_unavailable", async () => {
    engine("endless");
    const quick = createCodeExecutionBridge(harness.deps, { deadlineGraceMs: 30 });
    const { error } = await drain(quick.execute("kit", "endless", { code: "", timeoutMs: 10 }));
    expect((error as TrestleError).code).toBe(Code.DeadlineExceeded);
    expect(types()).toEqual(["started", "failed"]);
    expect(terminal()).toMatchObject({ errorCategory: "service_unavailable" });
  });

  it.each([
    ["a FAILED status", ExecutionStatus.FAILED, undefined, /status FAILED/],
    ["a TIMEOUT status", ExecutionStatus.TIMEOUT, undefined, /status TIMEOUT/],
    ["a CANCELLED status", ExecutionStatus.CANCELLED, undefined, /status CANCELLED/],
    ["a non-zero exit code", ExecutionStatus.COMPLETED, 3, /exited with code 3/],
  ])("when the stream ends with %s: FAILED execution_error", async (_, status, exitCode, message) => {
    engine("python", {
      async *codeExecutor() {
        yield { content: ["out"], outputType: OutputType.STDOUT, status: ExecutionStatus.RUNNING };
        yield {
          content: [],
          outputType: OutputType.COMPLETION,
          status,
          ...(exitCode === undefined ? {} : { exitCode }),
        };
      },
    });
    const { replies, error } = await drain(bridge.execute("kit", "python", { code: "" }));
    expect(error).toBeUndefined();
    expect(replies).toHaveLength(2);
    expect(types()).toEqual(["started", "failed"]);
    expect(terminal()).toMatchObject({
      errorCategory: "execution_error",
      errorMessage: expect.stringMatching(message),
    });
  });

  it("when the stream ends with exit code 0 after running statuses: COMPLETED", async () => {
    engine("python", {
      async *codeExecutor() {
        yield { content: ["out"], status: ExecutionStatus.RUNNING };
        yield { content: [], status: ExecutionStatus.COMPLETED, exitCode: 0 };
      },
    });
    await drain(bridge.execute("kit", "python", { code: "" }));
    expect(types()).toEqual(["started", "completed"]);
  });
});

describe("execute: events", () => {
  it("records the code as [CODE] and the arguments as a count only", async () => {
    const target = engine("count");
    const code = "import os; print(os.environ['X'])";
    await drain(
      bridge.execute(
        "kit",
        "count",
        { code: utf8Base64(code), arguments: ["first-argument", "second-argument"] },
        { requestId: "8", connectionId: "c1", namespace: "lab", toolName: "run_python" },
      ),
    );
    expect(harness.events[0]).toEqual({
      type: "started",
      eventId: "event-1",
      timestamp: 1_000_000,
      toolName: "run_python",
      toolType: "kit",
      kind: "code-execution",
      namespace: "lab",
      requestId: "8",
      connectionId: "c1",
      serviceId: target.id,
      serviceAddress: `in-memory:${target.port}`,
      arguments: {},
      headers: {},
      configurationURI: "",
      secretsURI: "",
      code: "[CODE]",
      argumentCount: 2,
    });
    const recorded = JSON.stringify(harness.events);
    expect(recorded).not.toContain("os.environ");
    expect(recorded).not.toContain(utf8Base64(code));
    expect(recorded).not.toContain("first-argument");
  });

  it("names the call {engineType}/{language} when the context gives no tool name", async () => {
    engine("count");
    await drain(bridge.execute("kit", "count", { code: "" }));
    expect(harness.events[0]?.toolName).toBe("kit/count");
  });

  it("scrubs secret environment values echoed in an engine's error", async () => {
    engine("python", {
      // biome-ignore lint/correctness/useYield: an engine that fails before producing anything
      async *codeExecutor(request) {
        throw new TrestleError(`cannot connect with ${JSON.stringify(request.environment)}`, Code.Internal);
      },
    });
    const { error } = await drain(
      bridge.execute("kit", "python", {
        code: "",
        environment: { DB_PASSWORD: "pa55word-canary", MODE: "fast" },
      }),
    );
    expect((error as TrestleError).message).not.toContain("pa55word-canary");
    expect((error as TrestleError).message).toContain("fast");
    expect(JSON.stringify(harness.events)).not.toContain("pa55word-canary");
  });
});
