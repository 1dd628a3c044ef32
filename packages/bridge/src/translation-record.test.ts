import type { ServiceTarget } from "@trestle/core";
import { describe, expect, it } from "vitest";
import type { CallRecord } from "./interceptors/call-events.js";
import { translationFor } from "./translation-record.js";

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

  it("reports an A2A client calling a gRPC service at once, with the backend's method", () => {
    const r = record();
    translationFor(r, { protocol: "a2a", version: "1.0", method: "SendMessage" }, target("grpc"));
    expect(r.translation).toEqual({
      client: { protocol: "a2a", version: "1.0", method: "SendMessage" },
      backend: { protocol: "grpc", method: "InvokeTool" },
      notes: [],
    });
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
});
