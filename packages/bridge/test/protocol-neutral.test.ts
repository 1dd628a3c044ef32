import type { ToolCall, ToolReference } from "@trestle/core";
import type { ToolCallStartedEvent } from "@trestle/core/events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInvokerBridge, type InvokerBridge } from "../src/index.js";
import { createHarness, type Harness, textOf } from "./harness.js";

let harness: Harness;
let bridge: InvokerBridge;

beforeEach(() => {
  harness = createHarness();
  bridge = createInvokerBridge(harness.deps);
});

afterEach(async () => {
  await harness.close();
});

const started = () => harness.events.find((e) => e.type === "started") as ToolCallStartedEvent;

// The bridge applies no protocol's rules: the arguments reach the transport as the client sent them, and only a
// transport that says how it sends a call (`describeToolCall`) turns arguments into anything else.
describe("a call whose transport sends its arguments as they are (an MCP forward)", () => {
  const tool: ToolReference = {
    name: "forward_tool",
    type: "forward",
    uri: "mcp://forward/tool",
    inputSchema: { type: "object", properties: { wanaku_body: { type: "string" } } },
  };

  it("gets wanaku_meta_*, wanaku_body and every other argument as plain arguments, untouched", async () => {
    const seen: ToolCall[] = [];
    harness.serveNeutral(
      {
        callTool(call) {
          seen.push(call);
          return { content: [{ type: "text", text: "ok" }] };
        },
      },
      { serviceName: "forward", serviceType: "tool-invoker" },
    );
    const args = { city: "Oslo", wanaku_meta_trace: "t-1", wanaku_body: { q: 1 }, n: 3, gone: null };
    const result = await bridge.execute(args, tool);
    expect(textOf(result.content[0])).toBe("ok");
    expect(seen[0]?.arguments).toEqual(args);
    // Recorded as the arguments they are: no headers, no body made of them.
    expect(started().arguments).toEqual({
      city: "Oslo",
      wanaku_meta_trace: "t-1",
      wanaku_body: '{"q":1}',
      n: "3",
    });
    expect(started().headers).toEqual({});
    expect(started().body).toBe("");
  });

  it("still scrubs the secret values its arguments show by name (nested, URL passwords) from result and events", async () => {
    harness.serveNeutral(
      {
        callTool: (call) => ({ content: [{ type: "text", text: `echo ${JSON.stringify(call.arguments)}` }] }),
      },
      { serviceName: "forward", serviceType: "tool-invoker" },
    );
    const result = await bridge.execute(
      {
        api_key: "k3y-forward-1",
        db: { url: "postgres://app:url-pass-22@db/x", credentials: { password: "nested-pw-33" } },
        wanaku_auth_tenant: "tenant-secret-44",
      },
      tool,
    );
    // The forward got them and echoed them: the client and the events see them scrubbed.
    expect(textOf(result.content[0])).toContain('"api_key":"[REDACTED]"');
    expect(textOf(result.content[0])).toContain('"wanaku_auth_tenant":"[REDACTED]"');
    const everything = JSON.stringify([result, harness.events]);
    for (const secret of ["k3y-forward-1", "url-pass-22", "nested-pw-33", "tenant-secret-44"])
      expect(everything).not.toContain(secret);
  });
});

describe("a call whose transport describes how it sends it (a Wanaku capability)", () => {
  it("records the headers and body the transport sends, and scrubs every secret it names, defaults included", async () => {
    harness.serve(
      { toolInvoker: (request) => ({ content: [JSON.stringify(request.headers)] }) },
      { serviceName: "svc", serviceType: "tool-invoker" },
    );
    const result = await bridge.execute(
      { city: "Oslo", wanaku_meta_Trace: "t-1", wanaku_auth_Tenant: "tenant-secret-55" },
      {
        name: "t",
        type: "svc",
        uri: "x://y",
        inputSchema: {
          type: "object",
          properties: { "X-Api-Key": { target: "header", scope: "service", value: "default-key-66" } },
        },
      },
    );
    const text = textOf(result.content[0]) ?? "";
    // The capability got the headers Wanaku's rules make; whatever it echoes of them, the secrets are scrubbed.
    expect(JSON.parse(text)).toEqual({ Trace: "t-1", "X-Api-Key": "[REDACTED]", Tenant: "[REDACTED]" });
    expect(started().arguments).toEqual({ city: "Oslo" });
    expect(started().headers).toEqual({ Trace: "t-1", "X-Api-Key": "[REDACTED]", Tenant: "[REDACTED]" });
    expect(JSON.stringify(harness.events)).not.toMatch(/tenant-secret-55|default-key-66/);
  });
});
