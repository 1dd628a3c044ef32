import {
  type BridgeTransport,
  Code,
  type CodeOutput,
  type ServiceTarget,
  TrestleError,
  withInterceptors,
} from "@trestle/core";
import { describe, expect, it } from "vitest";
import { outcomeFeedback } from "../../src/index.js";

const target: ServiceTarget = {
  id: "one",
  serviceName: "svc",
  host: "127.0.0.1",
  port: 9000,
  serviceType: "tool-invoker",
};

/** A transport whose tool calls fail with the code named by the tool's uri ("ok" succeeds). */
function scriptedTransport(): BridgeTransport {
  return {
    async callTool(call) {
      const code = call.tool.uri;
      if (code === "ok") return { content: [{ type: "text", text: "ok" }] };
      if (code === "tool-error") return { content: [{ type: "text", text: "no" }], isError: true };
      throw new TrestleError(code, Code[code as keyof typeof Code]);
    },
    async readResource() {
      return { contents: [] };
    },
    async *executeCode(run): AsyncGenerator<CodeOutput> {
      yield { type: "output", stream: "stdout", text: "1" };
      if (run.code === "unreachable") throw new TrestleError("gone", Code.Unavailable);
      yield { type: "output", stream: "stdout", text: "2" };
    },
    async provision() {
      return { configurationUri: "", secretsUri: "", properties: {} };
    },
    async probeHealth() {
      return { state: "healthy" };
    },
    async close() {},
  };
}

function recorded() {
  const log: string[] = [];
  const transport = withInterceptors(scriptedTransport(), [
    outcomeFeedback({
      callStarted: (t) => log.push(`started ${t.id}`),
      callEnded: (t, serviceFailure) =>
        log.push(`ended ${t.id} ${serviceFailure ? "service-failure" : "ok"}`),
    }),
  ]);
  return { log, transport };
}

const tool = (uri: string) => ({ tool: { name: "t", uri, type: "svc" }, arguments: {} });

describe("outcomeFeedback", () => {
  it("reports each call's start and end, and counts only the service's own failures against it", async () => {
    const { log, transport } = recorded();
    await transport.callTool(tool("ok"), target);
    await transport.callTool(tool("tool-error"), target);
    await expect(transport.callTool(tool("Unavailable"), target)).rejects.toMatchObject({
      code: Code.Unavailable,
    });
    await expect(transport.callTool(tool("DeadlineExceeded"), target)).rejects.toBeInstanceOf(TrestleError);
    await expect(transport.callTool(tool("InvalidArgument"), target)).rejects.toBeInstanceOf(TrestleError);
    await transport.readResource(
      { resource: { name: "r", location: "x://y", type: "svc" }, uri: "x://y" },
      target,
    );
    expect(log).toEqual([
      "started one",
      "ended one ok",
      "started one",
      "ended one ok",
      "started one",
      "ended one service-failure",
      "started one",
      "ended one service-failure",
      "started one",
      "ended one ok",
      "started one",
      "ended one ok",
    ]);
  });

  it("counts a code execution stream from its first read until it ends, fails or its consumer stops", async () => {
    const { log, transport } = recorded();
    const run = (code: string) => ({ engineType: "e", language: "python", code });
    const stream = transport.executeCode(run("fine"), target);
    expect(log).toEqual([]);
    const outputs: CodeOutput[] = [];
    for await (const output of stream) outputs.push(output);
    expect(outputs).toHaveLength(2);
    expect(log).toEqual(["started one", "ended one ok"]);

    log.length = 0;
    const failing = transport.executeCode(run("unreachable"), target)[Symbol.asyncIterator]();
    await failing.next();
    await expect(failing.next()).rejects.toMatchObject({ code: Code.Unavailable });
    expect(log).toEqual(["started one", "ended one service-failure"]);

    log.length = 0;
    const stopped = transport.executeCode(run("fine"), target)[Symbol.asyncIterator]();
    await stopped.next();
    expect(log).toEqual(["started one"]);
    await stopped.return?.();
    expect(log).toEqual(["started one", "ended one ok"]);
  });

  it("reports neither health probes nor provisioning, and survives a listener that throws", async () => {
    const { log, transport } = recorded();
    await transport.probeHealth(target);
    await transport.provision({ name: "t", configurationData: "", secretsData: "" }, target);
    expect(log).toEqual([]);
    const throwing = withInterceptors(scriptedTransport(), [
      outcomeFeedback({
        callStarted: () => {
          throw new Error("listener broke");
        },
        callEnded: () => {
          throw new Error("listener broke");
        },
      }),
    ]);
    expect((await throwing.callTool(tool("ok"), target)).content).toEqual([{ type: "text", text: "ok" }]);
  });
});
