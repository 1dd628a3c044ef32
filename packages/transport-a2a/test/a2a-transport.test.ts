import {
  Code,
  createContextValues,
  type InputRequest,
  type ServiceTarget,
  type ToolCall,
  type TranslationLeg,
  type TranslationNote,
  TrestleError,
  translationRecorderKey,
  upstreamCredentialKey,
} from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a2aSkillUri, createA2aTransport, readAgentCatalog } from "../src/index.js";
import { encodeTaskHandle } from "../src/task-handle.js";
import { type FixtureAgent, startAgent } from "./fixtures/fixture-agent.mjs";

const target: ServiceTarget = {
  id: "forward:/helper",
  serviceName: "forward.helper",
  host: "",
  port: 0,
  serviceType: "multi-capability",
  protocol: "a2a",
};

function call(skill: string, args: ToolCall["arguments"], extra: Partial<ToolCall> = {}): ToolCall {
  return {
    tool: { name: skill, type: "forward.helper", uri: a2aSkillUri("helper", skill) },
    arguments: args,
    ...extra,
  };
}

function texts(result: { content: { type: string; text?: string }[] }): string {
  return result.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

function recording() {
  const report: { backend?: TranslationLeg; notes: TranslationNote[] } = { notes: [] };
  const contextValues = createContextValues().set(translationRecorderKey, {
    client: { protocol: "mcp", method: "tools/call" },
    backend: (leg) => {
      report.backend = leg;
    },
    note: (n) => {
      report.notes.push(n);
    },
  });
  return { report, contextValues };
}

async function eventually<T>(check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) throw new Error("condition not met");
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const version of ["1.0", "0.3"] as const) {
  describe(`an A2A ${version} agent behind the transport`, () => {
    let agent: FixtureAgent;
    const transport = createA2aTransport({ agentFor: () => ({ url: agent.url }) });

    beforeAll(async () => {
      agent = await startAgent({ a2aVersion: version });
    });
    afterAll(async () => {
      await transport.close();
      await agent.close();
    });

    it("reads the card's skills as tools, with the version the agent speaks", async () => {
      const catalog = await readAgentCatalog({ url: agent.url });
      expect(catalog.protocolVersion).toBe(version);
      expect(catalog.streaming).toBe(true);
      expect(catalog.tools.map((t) => t.name)).toContain("converse");
      expect(catalog.notes.map((n) => n.what)).toContain("skill input schema");
    });

    it("answers a plain call, speaking the version's method names and A2A-Version", async () => {
      const { report, contextValues } = recording();
      const result = await transport.callTool(call("echo", { message: "hello" }), target, { contextValues });
      expect(result.isError).toBeUndefined();
      expect(texts(result)).toBe("echo: hello");
      expect(result.structuredContent?.state).toBe("message");
      expect(report.backend).toEqual({
        protocol: "a2a",
        version,
        method: version === "1.0" ? "SendStreamingMessage" : "message/stream",
      });
      const rpc = agent.log.filter((e) => e.event === "rpc");
      expect(rpc.at(-1)).toEqual({
        event: "rpc",
        method: version === "1.0" ? "SendStreamingMessage" : "message/stream",
        version,
      });
    });

    it("relays streamed chunks as progress before the agent finishes", async () => {
      const progress: string[] = [];
      const pending = transport.callTool(call("stream", { message: "go" }), target, {
        onProgress: (p) => progress.push(p.message ?? ""),
      });
      await eventually(() => (progress.includes("chunk 1;") ? true : undefined));
      // Only now may the agent finish.
      await fetch(`${agent.url}/control/release`, { method: "POST" });
      const result = await pending;
      expect(texts(result)).toBe("chunk 1; chunk 2; chunk 3.");
      expect(progress).toEqual(["chunk 1;", " chunk 2;", " chunk 3."]);
    });

    it("keeps the task across two turns through the handle", async () => {
      const first = await transport.callTool(call("converse", { message: "hi" }), target);
      expect(first.structuredContent?.state).toBe("input-required");
      expect(texts(first)).toContain("What is your name?");
      expect(first.inputRequired?.requests.reply).toEqual({
        kind: "elicitation",
        params: expect.objectContaining({ message: "What is your name?" }),
      });
      const handle = first.structuredContent?.task as string;
      expect(first.inputRequired?.state).toBe(handle);
      const taskId = (first._meta?.["trestle.dev/a2a"] as { taskId: string } | undefined)?.taskId;
      expect(taskId).toBeTruthy();
      const second = await transport.callTool(call("converse", { message: "Ada", task: handle }), target);
      expect(second.structuredContent?.state).toBe("completed");
      expect(texts(second)).toBe(`Hello, Ada! (task ${taskId})`);
    });

    it("continues an input-required task with the repeated call's input", async () => {
      const first = await transport.callTool(call("converse", { message: "hi" }), target);
      const second = await transport.callTool(
        call(
          "converse",
          {},
          {
            input: {
              responses: { reply: { action: "accept", content: { reply: "Grace" } } },
              state: first.inputRequired?.state as string,
            },
          },
        ),
        target,
      );
      expect(texts(second)).toMatch(/^Hello, Grace! \(task /);
    });

    it("asks the caller as an elicitation while the call runs, when it can", async () => {
      const asked: InputRequest[] = [];
      const { report, contextValues } = recording();
      const result = await transport.callTool(call("converse", { message: "hi" }), target, {
        contextValues,
        onInputRequest: async (request) => {
          asked.push(request);
          return { action: "accept", result: { action: "accept", content: { reply: "Linus" } } };
        },
      });
      expect(asked).toHaveLength(1);
      expect(asked[0]?.params.message).toBe("What is your name?");
      expect(texts(result)).toMatch(/^Hello, Linus!/);
      expect(report.notes.map((n) => n.what)).toContain("TASK_STATE_INPUT_REQUIRED");
    });

    it("sends CancelTask when the call is cancelled", async () => {
      const controller = new AbortController();
      const progress: string[] = [];
      const pending = transport.callTool(call("slow", { message: "take your time" }), target, {
        signal: controller.signal,
        onProgress: (p) => progress.push(p.message ?? ""),
      });
      await eventually(() => (progress.includes("working on it") ? true : undefined));
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: Code.Canceled });
      await eventually(() => agent.log.find((e) => e.event === "cancel"));
    });

    it("keeps an agent's JSON-RPC error code as a typed detail (a task it does not know)", async () => {
      const handle = encodeTaskHandle({ contextId: "ctx-unknown", taskId: "no-such-task" });
      const error = await transport.callTool(call("echo", { message: "x", task: handle }), target).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TrestleError);
      expect((error as TrestleError).findDetail("json-rpc")).toMatchObject({
        type: "json-rpc",
        protocol: "a2a",
      });
      expect((error as TrestleError).findDetail("json-rpc")?.code).toBeLessThan(-32000);
    });

    it("turns failed, rejected and auth-required tasks into error results", async () => {
      const failed = await transport.callTool(call("fail", { message: "x" }), target);
      expect(failed.isError).toBe(true);
      expect(texts(failed)).toBe("The A2A agent failed the task: something broke in the agent");
      const rejected = await transport.callTool(call("reject", { message: "x" }), target);
      expect(texts(rejected)).toBe("The A2A agent rejected the task: I do not do that");
      const auth = await transport.callTool(call("auth", { message: "x" }), target);
      expect(auth.isError).toBe(true);
      expect(texts(auth)).toContain("needs authentication");
    });

    it("turns file and data parts into MCP content and structured content", async () => {
      const { report, contextValues } = recording();
      const result = await transport.callTool(call("files", { message: "x" }), target, { contextValues });
      expect(result.content).toEqual([
        { type: "text", text: "here are your files" },
        {
          type: "resource_link",
          uri: "https://files.example/report.pdf",
          name: "report.pdf",
          mimeType: "application/pdf",
        },
        {
          type: "resource",
          resource: {
            uri: `${a2aSkillUri("helper", "files")}/files/hello.txt`,
            mimeType: "text/plain",
            text: "hello bytes",
          },
        },
        { type: "text", text: '{"total":42,"items":["a","b"]}' },
      ]);
      expect(result.structuredContent?.data).toEqual({ total: 42, items: ["a", "b"] });
      expect(report.notes.map((n) => n.what)).toEqual(
        expect.arrayContaining(["data part", "file part (URL)", "file part (bytes)"]),
      );
    });
  });
}

for (const [binding, streaming] of [
  ["HTTP+JSON", true],
  ["JSONRPC", false],
  ["GRPC", true],
  ["GRPC", false],
] as const) {
  describe(`an agent on ${binding}${streaming ? "" : " that does not stream"}`, () => {
    let agent: FixtureAgent;
    const transport = createA2aTransport({ agentFor: () => ({ url: agent.url }) });
    beforeAll(async () => {
      agent = await startAgent({ binding, streaming });
    });
    afterAll(async () => {
      await transport.close();
      await agent.close();
    });

    it("is called at the interface its card names, with the method its card allows", async () => {
      const { report, contextValues } = recording();
      const reply = await transport.callTool(call("echo", { message: "hi" }), target, { contextValues });
      expect(texts(reply)).toBe("echo: hi");
      expect(report.backend?.method).toBe(streaming ? "SendStreamingMessage" : "SendMessage");
      const event = binding === "HTTP+JSON" ? "rest" : binding === "GRPC" ? "grpc" : "rpc";
      const seen = agent.log.filter((e) => e.event === event);
      expect(seen.length).toBeGreaterThan(0);
      // Every binding says which A2A version it speaks (an absent version means 0.3).
      expect(seen.every((e) => e.version === "1.0")).toBe(true);
      const first = await transport.callTool(call("converse", { message: "hi" }), target);
      expect(first.structuredContent?.state).toBe("input-required");
      const second = await transport.callTool(
        call("converse", { message: "Ada", task: first.structuredContent?.task as string }),
        target,
      );
      expect(texts(second)).toMatch(/^Hello, Ada!/);
      const failed = await transport.callTool(call("fail", { message: "x" }), target);
      expect(failed.isError).toBe(true);
    });
  });
}

for (const binding of ["JSONRPC", "GRPC"] as const)
  describe(`an agent whose card requires credentials (${binding})`, () => {
    const token = "s3cret-token-value";
    let agent: FixtureAgent;
    beforeAll(async () => {
      agent = await startAgent({ token, binding });
    });
    afterAll(() => agent.close());

    it("refuses without them, naming what the card asks for, never a value", async () => {
      const error = await readAgentCatalog({ url: agent.url }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TrestleError);
      expect((error as TrestleError).code).toBe(Code.Unauthenticated);
      expect((error as TrestleError).message).toContain("'bearer' (header authorization)");
    });

    it("calls with them, and never shows them in a failure", async () => {
      const transport = createA2aTransport({
        agentFor: () => ({ url: agent.url, headers: { authorization: `Bearer ${token}` } }),
      });
      const result = await transport.callTool(call("echo", { message: "hi" }), target);
      expect(texts(result)).toBe("echo: hi");
      const wrong = createA2aTransport({
        agentFor: () => ({ url: agent.url, headers: { authorization: "Bearer wrong-token-123" } }),
      });
      const error = (await wrong
        .callTool(call("echo", { message: "hi" }), target)
        .catch((e: unknown) => e)) as TrestleError;
      expect(error).toBeInstanceOf(TrestleError);
      expect(error.message).not.toContain("wrong-token-123");
      await transport.close();
      await wrong.close();
    });

    it("sends the call's own credential (the router's for its caller) over the configured one, never showing it", async () => {
      // The agent's configured header is wrong: only the call's credential lets the call through.
      const transport = createA2aTransport({
        agentFor: () => ({ url: agent.url, headers: { Authorization: "Bearer configured-stale-1" } }),
      });
      const withCredential = (value: string) => ({
        contextValues: createContextValues().set(upstreamCredentialKey, { authorization: `Bearer ${value}` }),
      });
      const result = await transport.callTool(call("echo", { message: "hi" }), target, withCredential(token));
      expect(texts(result)).toBe("echo: hi");
      const error = (await transport
        .callTool(call("echo", { message: "hi" }), target, withCredential("exchanged-wrong-456"))
        .catch((e: unknown) => e)) as TrestleError;
      expect(error).toBeInstanceOf(TrestleError);
      expect(error.message).not.toContain("exchanged-wrong-456");
      await transport.close();
    });
  });

describe("bad input", () => {
  it("refuses a call with neither message nor data, and a forged handle", async () => {
    const transport = createA2aTransport({ agentFor: () => ({ url: "http://127.0.0.1:9" }) });
    await expect(transport.callTool(call("echo", {}), target)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(
      transport.callTool(call("echo", { message: "x", task: "not a handle!" }), target),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(transport.callTool(call("echo", { message: "x" }), target)).rejects.toMatchObject({
      code: Code.Unavailable,
    });
  });
});
