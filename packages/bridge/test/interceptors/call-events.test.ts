import {
  type BridgeTransport,
  Code,
  type CodeOutput,
  type ContextValues,
  createContextValues,
  type ServiceTarget,
  TrestleError,
  withInterceptors,
} from "@trestle/core";
import type { ToolCallEvent } from "@trestle/core/events";
import { describe, expect, it } from "vitest";
import {
  type CallRecord,
  callEvents,
  callRecordKey,
  callSecretsKey,
  concurrencyLimit,
  createSecretValues,
  recordUndispatched,
  scrubSecrets,
} from "../../src/index.js";
import { stubTransport } from "../support/stub-transport.js";

const target: ServiceTarget = {
  id: "one",
  serviceName: "svc",
  host: "127.0.0.1",
  port: 9000,
  serviceType: "tool-invoker",
};

const SECRET = "s3cret-value-4f1e";

/** Tools answer by uri: "ok", "tool-error", "echo" (the secret back), or fail with the code the uri names. */
function scriptedTransport(): BridgeTransport {
  return stubTransport({
    async callTool(call) {
      const uri = call.tool.uri;
      if (uri === "ok") return { content: [{ type: "text", text: "ok" }] };
      if (uri === "tool-error") return { content: [{ type: "text", text: "no" }], isError: true };
      if (uri === "echo") return { content: [{ type: "text", text: `got ${SECRET}` }] };
      throw new TrestleError(`failed with ${SECRET}`, Code[uri as keyof typeof Code]);
    },
    async *executeCode(run): AsyncGenerator<CodeOutput> {
      yield { type: "output", stream: "stdout", text: "1" };
      if (run.code === "unreachable") throw new TrestleError(`gone ${SECRET}`, Code.Unavailable);
      if (run.code === "exit-1") yield { type: "exit", status: "completed", exitCode: 1 };
      yield { type: "output", stream: "stdout", text: "2" };
    },
  });
}

function record(kind: CallRecord["kind"] = "tool"): CallRecord {
  return {
    toolName: "t",
    toolType: "svc",
    kind,
    namespace: "ns",
    connectionId: "conn-1",
    requestId: "7",
    started: { arguments: { q: "1" }, headers: {}, body: "", configurationURI: "", secretsURI: "" },
    what: "tool 't'",
    operation: "tool invocation",
    startedAt: 1_000,
  };
}

function contextFor(kind: CallRecord["kind"] = "tool"): ContextValues {
  const secrets = createSecretValues();
  secrets.add(SECRET);
  return createContextValues().set(callRecordKey, record(kind)).set(callSecretsKey, secrets);
}

function setup(extra: Parameters<typeof withInterceptors>[1] = []) {
  const events: ToolCallEvent[] = [];
  let now = 1_000;
  const options = {
    sink: { emit: (e: ToolCallEvent) => void events.push(e) },
    clock: () => now,
    newId: () => "id",
  };
  const transport = withInterceptors(scriptedTransport(), [callEvents(options), scrubSecrets(), ...extra]);
  const advance = (ms: number) => {
    now += ms;
  };
  return { events, transport, options, advance };
}

const tool = (uri: string) => ({ tool: { name: "t", uri, type: "svc" }, arguments: {} });

describe("callEvents", () => {
  it("records STARTED with the target and the bridge's record, then COMPLETED with the duration", async () => {
    const { events, transport, advance } = setup();
    advance(5);
    await transport.callTool(tool("ok"), target, { contextValues: contextFor() });
    expect(events.map((e) => e.type)).toEqual(["started", "completed"]);
    expect(events[0]).toMatchObject({
      eventId: "id",
      toolName: "t",
      namespace: "ns",
      connectionId: "conn-1",
      requestId: "7",
      serviceId: "one",
      serviceAddress: "127.0.0.1:9000",
      arguments: { q: "1" },
    });
    expect(events[1]).toMatchObject({ type: "completed", content: ["ok"], duration: 5, isError: false });
  });

  it("records an error result as FAILED execution_error, and a rejection with its category and the service named", async () => {
    const { events, transport } = setup();
    await transport.callTool(tool("tool-error"), target, { contextValues: contextFor() });
    await expect(
      transport.callTool(tool("Unavailable"), target, { contextValues: contextFor() }),
    ).rejects.toThrow(/\[REDACTED\]/);
    expect(events.filter((e) => e.type === "failed")).toMatchObject([
      { errorCategory: "execution_error", errorMessage: "no" },
      {
        errorCategory: "service_unavailable",
        errorMessage: expect.stringMatching(
          /^The capability service 'svc' at 127\.0\.0\.1:9000 is unavailable/,
        ),
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it("records a call a concurrency limit refuses as FAILED service_unavailable", async () => {
    const { events, transport } = setup([
      concurrencyLimit(() => ({ maxConcurrentCalls: 1, maxQueuedCalls: 0 })),
    ]);
    const slow = transport.callTool(tool("ok"), target, { contextValues: contextFor() });
    await expect(transport.callTool(tool("ok"), target, { contextValues: contextFor() })).rejects.toThrow(
      /at its limit/,
    );
    await slow;
    expect(events.filter((e) => e.type === "failed")).toMatchObject([
      { errorCategory: "service_unavailable" },
    ]);
  });

  it("passes calls without a record through unrecorded", async () => {
    const { events, transport } = setup();
    await transport.callTool(tool("ok"), target);
    await transport.probeHealth(target, { contextValues: contextFor() });
    await transport.readResource({ resource: { name: "r", location: "x", type: "svc" }, uri: "x" }, target, {
      contextValues: contextFor(),
    });
    expect(events).toEqual([]);
  });

  it("ends a code execution exactly once: completed, failed, non-zero exit, stopped early, aborted", async () => {
    const { events, transport } = setup();
    const run = (code: string) => ({ engineType: "e", language: "l", code });
    const drain = async (signal?: AbortSignal, code = "ok", stopAfter = Infinity) => {
      let n = 0;
      try {
        const options = { contextValues: contextFor("code-execution"), ...(signal ? { signal } : {}) };
        for await (const _ of transport.executeCode(run(code), target, options)) if (++n >= stopAfter) break;
      } catch {
        // The failure is what the events record.
      }
    };
    await drain();
    await drain(undefined, "unreachable");
    await drain(undefined, "exit-1");
    await drain(undefined, "ok", 1);
    const abort = new AbortController();
    const iterator = transport
      .executeCode(run("ok"), target, { contextValues: contextFor("code-execution"), signal: abort.signal })
      [Symbol.asyncIterator]();
    await iterator.next();
    abort.abort();
    await iterator.return?.();
    const terminal = events.filter((e) => e.type !== "started");
    expect(events.filter((e) => e.type === "started")).toHaveLength(5);
    expect(terminal).toMatchObject([
      { type: "completed" },
      { type: "failed", errorCategory: "service_unavailable" },
      { type: "failed", errorCategory: "execution_error", errorMessage: "The code exited with code 1" },
      {
        type: "failed",
        errorCategory: "none",
        errorMessage: "The code execution was cancelled by the client",
      },
      {
        type: "failed",
        errorCategory: "none",
        errorMessage: "The code execution was cancelled by the client",
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it("keeps a call alive when the sink throws", async () => {
    const transport = withInterceptors(scriptedTransport(), [
      callEvents({
        sink: {
          emit() {
            throw new Error("sink down");
          },
        },
      }),
    ]);
    const result = await transport.callTool(tool("ok"), target, { contextValues: contextFor() });
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
  });
});

describe("recordUndispatched", () => {
  it("records STARTED without a service and FAILED with the error's category, scrubbed", () => {
    const { events, options } = setup();
    const secrets = createSecretValues();
    secrets.add(SECRET);
    recordUndispatched(
      record(),
      new TrestleError(`no service for ${SECRET}`, Code.NotFound),
      options,
      secrets,
    );
    expect(events).toMatchObject([
      { type: "started", toolName: "t" },
      { type: "failed", errorCategory: "tool_definition_error", errorMessage: "no service for [REDACTED]" },
    ]);
    expect(events[0]).not.toHaveProperty("serviceId");
  });
});
