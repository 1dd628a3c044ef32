import { describe, expect, it } from "vitest";
import type { BridgeTransport, CodeOutput, ToolCall } from "./call.js";
import { createContextKey, createContextValues } from "./context-values.js";
import { Code, TrestleError } from "./error.js";
import { failedResponse, type Interceptor, withInterceptors } from "./interceptor.js";
import type { ServiceTarget } from "./service-target.js";

const target: ServiceTarget = {
  id: "t",
  serviceName: "svc",
  host: "127.0.0.1",
  port: 1,
  serviceType: "tool-invoker",
};
const call: ToolCall = { tool: { name: "echo", uri: "echo://", type: "svc" }, arguments: { a: 1 } };

function recordingTransport(log: string[]): BridgeTransport {
  return {
    async callTool(input, _target, options) {
      log.push(`transport:${String(input.arguments.a)}:${options?.metadata?.["x-layer"] ?? ""}`);
      return { content: [{ type: "text", text: "ok" }] };
    },
    async readResource(read) {
      return { contents: [{ uri: read.uri, text: "r" }] };
    },
    async *executeCode(): AsyncGenerator<CodeOutput> {
      yield { type: "output", stream: "stdout", text: "1" };
      yield { type: "exit", status: "completed", exitCode: 0 };
    },
    async provision(p) {
      return { configurationUri: `c:${p.name}`, secretsUri: "", properties: {} };
    },
    async probeHealth() {
      return { state: "healthy" };
    },
    release() {
      log.push("release");
    },
    async close() {
      log.push("close");
    },
  };
}

function layer(name: string, log: string[]): Interceptor {
  return (next) => (request) => {
    log.push(`${name}:in:${request.method}`);
    const metadata = {
      ...request.options.metadata,
      "x-layer": `${request.options.metadata?.["x-layer"] ?? ""}${name}`,
    };
    const result = next({ ...request, options: { ...request.options, metadata } });
    log.push(`${name}:out`);
    return result;
  };
}

describe("withInterceptors", () => {
  it("runs the first interceptor outermost, and each sees what the previous passed on", async () => {
    const log: string[] = [];
    const transport = withInterceptors(recordingTransport(log), [layer("A", log), layer("B", log)]);
    const result = await transport.callTool(call, target);
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(log).toEqual(["A:in:callTool", "B:in:callTool", "transport:1:AB", "B:out", "A:out"]);
  });

  it("routes every method to the transport's own method", async () => {
    const log: string[] = [];
    const methods: string[] = [];
    const spy: Interceptor = (next) => (request) => {
      methods.push(request.method);
      return next(request);
    };
    const transport = withInterceptors(recordingTransport(log), [spy]);
    expect(
      (
        await transport.readResource(
          { resource: { location: "r://x", type: "svc", name: "x" }, uri: "r://x" },
          target,
        )
      ).contents,
    ).toEqual([{ uri: "r://x", text: "r" }]);
    const outputs: CodeOutput[] = [];
    for await (const output of transport.executeCode({ engineType: "e", language: "l", code: "" }, target)) {
      outputs.push(output);
    }
    expect(outputs.map((o) => o.type)).toEqual(["output", "exit"]);
    expect(
      (await transport.provision({ name: "n", configurationData: "", secretsData: "" }, target))
        .configurationUri,
    ).toBe("c:n");
    expect((await transport.probeHealth(target)).state).toBe("healthy");
    expect(methods).toEqual(["readResource", "executeCode", "provision", "probeHealth"]);
    transport.release?.(target);
    await transport.close();
    expect(log).toEqual(["release", "close"]);
  });

  it("lets an interceptor answer without calling the transport, and see failures", async () => {
    const log: string[] = [];
    const deny: Interceptor = (next) => (request) =>
      request.method === "callTool"
        ? failedResponse(request, new TrestleError("no", Code.PermissionDenied))
        : next(request);
    const transport = withInterceptors(recordingTransport(log), [deny]);
    await expect(transport.callTool(call, target)).rejects.toMatchObject({ code: Code.PermissionDenied });
    expect(log).toEqual([]);
  });

  it("fails a refused stream when it is read", async () => {
    const refuse: Interceptor = (next) => (request) =>
      request.method === "executeCode"
        ? failedResponse(request, new TrestleError("busy", Code.ResourceExhausted))
        : next(request);
    const transport = withInterceptors(recordingTransport([]), [refuse]);
    const stream = transport.executeCode({ engineType: "e", language: "l", code: "" }, target);
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      code: Code.ResourceExhausted,
    });
  });

  it("passes describeToolCall straight to the transport, past every interceptor, and has it only when the transport does", () => {
    const log: string[] = [];
    expect(withInterceptors(recordingTransport(log), [layer("a", log)]).describeToolCall).toBeUndefined();
    const description = {
      secretValues: ["s3cr3t-value"],
      record: () => ({ arguments: {}, headers: {}, body: "" }),
    };
    const describing = withInterceptors(
      {
        ...recordingTransport(log),
        describeToolCall(input, to) {
          log.push(`describe:${input.tool.name}:${to.serviceName}`);
          return description;
        },
      },
      [layer("a", log)],
    );
    expect(describing.describeToolCall?.(call, target)).toBe(description);
    expect(log).toEqual(["describe:echo:svc"]);
  });

  it("has getPrompt only when the transport has it", async () => {
    const bare = withInterceptors(recordingTransport([]), []);
    expect(bare.getPrompt).toBeUndefined();
    const withPrompts = withInterceptors(
      {
        ...recordingTransport([]),
        async getPrompt(get) {
          return { messages: [{ role: "user", content: { type: "text", text: get.arguments.x ?? "" } }] };
        },
      },
      [],
    );
    const result = await withPrompts.getPrompt?.(
      { prompt: { name: "p", messages: [] }, arguments: { x: "hi" } },
      target,
    );
    expect(result?.messages[0]?.content).toEqual({ type: "text", text: "hi" });
  });

  it("hands every interceptor the call's own context values", async () => {
    const kUser = createContextKey<string | undefined>(undefined);
    const seen: (string | undefined)[] = [];
    const read: Interceptor = (next) => (request) => {
      seen.push(request.options.contextValues?.get(kUser));
      return next(request);
    };
    const transport = withInterceptors(recordingTransport([]), [read]);
    await transport.callTool(call, target, { contextValues: createContextValues().set(kUser, "alice") });
    await transport.callTool(call, target);
    expect(seen).toEqual(["alice", undefined]);
  });
});
