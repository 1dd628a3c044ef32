import {
  type BridgeTransport,
  Code,
  type CodeOutput,
  createContextValues,
  type ServiceTarget,
  TrestleError,
  withInterceptors,
} from "@trestle/core";
import { describe, expect, it } from "vitest";
import { callSecretsKey, createSecretValues, scrubSecrets } from "../../src/index.js";
import { stubTransport } from "../support/stub-transport.js";

const target: ServiceTarget = {
  id: "one",
  serviceName: "svc",
  host: "h",
  port: 1,
  serviceType: "tool-invoker",
};
const SECRET = "tok-8d2c9a";

function echoing(): BridgeTransport {
  return stubTransport({
    async callTool(call) {
      if (call.tool.uri === "fail")
        throw new TrestleError(`bad token ${SECRET}`, Code.PermissionDenied, { cause: SECRET });
      return {
        content: [{ type: "text", text: `Bearer ${SECRET}` }],
        structuredContent: { nested: { deep: [SECRET] } },
      };
    },
    async readResource() {
      return { contents: [{ uri: "x", text: SECRET }] };
    },
    async *executeCode(run): AsyncGenerator<CodeOutput> {
      yield { type: "output", stream: "stdout", text: SECRET };
      if (run.code === "fail") throw new TrestleError(`engine saw ${SECRET}`, Code.Internal);
    },
  });
}

function withSecret() {
  const secrets = createSecretValues();
  secrets.add(SECRET);
  return { contextValues: createContextValues().set(callSecretsKey, secrets) };
}

const tool = (uri: string) => ({ tool: { name: "t", uri, type: "svc" }, arguments: {} });

describe("scrubSecrets", () => {
  const transport = withInterceptors(echoing(), [scrubSecrets()]);

  it("scrubs every string of a tool result and of a resource read", async () => {
    const result = await transport.callTool(tool("ok"), target, withSecret());
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result.content).toEqual([{ type: "text", text: "Bearer [REDACTED]" }]);
    const read = await transport.readResource(
      { resource: { name: "r", location: "x", type: "svc" }, uri: "x" },
      target,
      withSecret(),
    );
    expect(JSON.stringify(read)).not.toContain(SECRET);
  });

  it("scrubs an error's message, keeps its code and drops its cause", async () => {
    const error = await transport.callTool(tool("fail"), target, withSecret()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrestleError);
    expect(error).toMatchObject({ code: Code.PermissionDenied, rawMessage: "bad token [REDACTED]" });
    expect((error as TrestleError).cause).toBeUndefined();
  });

  it("scrubs a code execution's error and passes its outputs as they are", async () => {
    const seen: string[] = [];
    const error = await (async () => {
      for await (const output of transport.executeCode(
        { engineType: "e", language: "l", code: "fail" },
        target,
        withSecret(),
      ))
        if (output.type === "output") seen.push(output.text);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([SECRET]);
    expect(error).toMatchObject({ code: Code.Internal, rawMessage: "engine saw [REDACTED]" });
  });

  it("passes calls without secrets through untouched", async () => {
    const result = await transport.callTool(tool("ok"), target);
    expect(result.content).toEqual([{ type: "text", text: `Bearer ${SECRET}` }]);
    const error = await transport.callTool(tool("fail"), target).catch((e: unknown) => e);
    expect((error as TrestleError).cause).toBe(SECRET);
  });
});

describe("createSecretValues", () => {
  it("scrubs through one shared method, not a function made for every call's set", () => {
    const first = createSecretValues();
    const second = createSecretValues();
    second.add("Bearer s3cr3t-token");
    expect(first.scrub).toBe(second.scrub);
    expect(Object.keys(second)).not.toContain("scrub");
    expect(second.scrub("denied for s3cr3t-token")).toBe("denied for [REDACTED]");
    expect(first.scrub("denied for s3cr3t-token")).toBe("denied for s3cr3t-token");
  });
});
