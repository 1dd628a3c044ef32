import type { ServiceTarget } from "@trestle/core";
import { describe, expect, it } from "vitest";
import type { CallRecord } from "./interceptors/call-events.js";
import { createClientLegs, translationFor } from "./translation-record.js";

const record = (): CallRecord => ({
  toolName: "t",
  toolType: "svc",
  kind: "tool",
  started: { arguments: {}, headers: {}, configurationURI: "", secretsURI: "" },
  what: "tool 't'",
  operation: "tool invocation",
});
const target = (protocol?: string): ServiceTarget => ({
  id: "1",
  serviceName: "svc",
  host: "h",
  port: 1,
  serviceType: "tool-invoker",
  ...(protocol ? { protocol } : {}),
});

describe("translationFor", () => {
  it("leaves an MCP call to a gRPC service without a report until a transport says it translated", () => {
    const r = record();
    translationFor(r, undefined, target());
    expect(r.translation).toBeUndefined();
  });

  it("reports an A2A client calling a gRPC service at once, and takes the backend leg the transport reports", () => {
    const r = record();
    const recorder = translationFor(
      r,
      { protocol: "a2a", version: "1.0", method: "SendMessage" },
      target("grpc"),
    );
    expect(r.translation).toEqual({
      client: { protocol: "a2a", version: "1.0", method: "SendMessage" },
      backend: { protocol: "grpc", method: "callTool" },
      notes: [],
    });
    recorder.backend({ protocol: "grpc", method: "InvokeTool" });
    expect(r.translation?.backend).toEqual({ protocol: "grpc", method: "InvokeTool" });
  });

  it("records the leg and notes a transport reports, with the MCP front as the client by default", () => {
    const r = record();
    const recorder = translationFor(r, undefined, target("a2a"));
    recorder.backend({ protocol: "a2a", version: "0.3", method: "message/send" });
    recorder.note({ action: "approximated", what: "skill input schema", detail: "a text message" });
    expect(r.translation).toEqual({
      client: { protocol: "mcp", method: "tools/call" },
      backend: { protocol: "a2a", version: "0.3", method: "message/send" },
      notes: [{ action: "approximated", what: "skill input schema", detail: "a text message" }],
    });
  });

  it("shares one frozen starting leg between calls, and keeps a transport's frozen leg as it is", () => {
    const mcpClient = { protocol: "mcp", version: "2025-11-25", method: "tools/call" };
    const legs = createClientLegs();
    const first = record();
    const second = record();
    translationFor(first, mcpClient, target("grpc"), [], legs);
    translationFor(second, mcpClient, target("grpc"), [], legs);
    const shared = first.translation?.backend;
    expect(shared).toEqual({ protocol: "grpc", method: "callTool" });
    expect(Object.isFrozen(shared)).toBe(true);
    expect(second.translation?.backend).toBe(shared);
    // What a transport reports: one frozen leg for all its calls, kept rather than copied.
    const invoke = Object.freeze({ protocol: "grpc", method: "InvokeTool" });
    const third = record();
    translationFor(third, mcpClient, target("grpc"), [], legs).backend(invoke);
    expect(third.translation?.backend).toBe(invoke);
    // A leg that is not frozen may change after it is reported: the report keeps a copy.
    const loose = { protocol: "grpc", method: "Other" };
    const fourth = record();
    translationFor(fourth, mcpClient, target("grpc"), [], legs).backend(loose);
    loose.method = "Changed";
    expect(fourth.translation?.backend).toEqual({ protocol: "grpc", method: "Other" });
    expect(shared).toEqual({ protocol: "grpc", method: "callTool" });
  });

  it("copies the client's leg, so a front that reuses its object cannot change a recorded report", () => {
    const client = { protocol: "a2a", version: "1.0", method: "SendMessage" };
    const r = record();
    translationFor(r, client, target("grpc"));
    client.method = "GetTask";
    expect(r.translation?.client.method).toBe("SendMessage");
  });

  it("shares a frozen client leg rather than copying it: it cannot change, and a history keeps a report per call", () => {
    const client = Object.freeze({ protocol: "mcp", version: "2025-11-25", method: "tools/call" });
    const first = record();
    const second = record();
    translationFor(first, client, target("grpc"));
    translationFor(second, client, target("grpc"));
    expect(first.translation?.client).toBe(client);
    expect(second.translation?.client).toBe(client);
  });

  it("names the backend leg of a transport that reports none by the target's protocol and the neutral method", () => {
    const r = record();
    translationFor(r, { protocol: "a2a", version: "1.0", method: "SendMessage" }, target("nats"));
    expect(r.translation?.backend).toEqual({ protocol: "nats", method: "callTool" });
    const run = { ...record(), kind: "code-execution" as const };
    translationFor(run, { protocol: "a2a", version: "1.0", method: "SendMessage" }, target());
    expect(run.translation?.backend).toEqual({ protocol: "grpc", method: "executeCode" });
  });
});

describe("createClientLegs", () => {
  it("hands out one frozen leg per protocol, version and method, and no more than its limit keeps", () => {
    const legs = createClientLegs(2);
    const mcp = legs("mcp", "2025-11-25", "tools/call");
    expect(mcp).toEqual({ protocol: "mcp", version: "2025-11-25", method: "tools/call" });
    expect(Object.isFrozen(mcp)).toBe(true);
    expect(legs("mcp", "2025-11-25", "tools/call")).toBe(mcp);
    const a2a = legs("a2a", "1.0", "SendMessage");
    expect(a2a).not.toBe(mcp);
    expect(legs("a2a", "1.0", "SendMessage")).toBe(a2a);
    // Past the limit: a leg of its own each time, still frozen and right.
    const third = legs("a2a", "1.0", "SendStreamingMessage");
    expect(legs("a2a", "1.0", "SendStreamingMessage")).not.toBe(third);
    expect(third).toEqual({ protocol: "a2a", version: "1.0", method: "SendStreamingMessage" });
    expect(Object.isFrozen(third)).toBe(true);
  });
});
