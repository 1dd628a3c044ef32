import { callEvents, createInvokerBridge, interceptTransports, scrubSecrets } from "@trestle/bridge";
import type { ServiceTarget, ToolReference } from "@trestle/core";
import type { ToolCallEvent } from "@trestle/core/events";
import { createTransportSelector } from "@trestle/core/routing";
import { afterAll, describe, expect, it } from "vitest";
import { createMcpTransport, type McpUpstream, mcpToolUri } from "../src/index.js";
import { FIXTURE, mcpTarget, REPO_ROOT, texts } from "./support/upstreams.js";

const CANARY = "canary-bridge-94e1d0b7";

/**
 * The bridge, unchanged, routing to MCP forwards: each forwarded call records the same STARTED and COMPLETED or
 * FAILED events as a gRPC-routed one, with the failure's category taken from the transport's code.
 */
describe("forwarded calls through the stock InvokerBridge", () => {
  const upstreams: Record<string, McpUpstream> = {
    fixture: {
      kind: "stdio",
      command: process.execPath,
      args: [FIXTURE, `--secret=${CANARY}`],
      cwd: REPO_ROOT,
    },
    broken: { kind: "stdio", command: "/nonexistent/broken-server", args: [`--secret=${CANARY}`] },
  };
  const targets: Record<string, ServiceTarget> = {
    fixture: mcpTarget("fwd-fixture", "fixture"),
    broken: mcpTarget("fwd-broken", "broken"),
  };
  const mcp = createMcpTransport({ upstreamFor: (target) => upstreams[target.serviceName] });
  const events: ToolCallEvent[] = [];
  const sink = { emit: (event: ToolCallEvent) => void events.push(event) };
  const bridge = createInvokerBridge({
    resolver: {
      resolve: async (serviceName) => targets[serviceName],
      resolveCodeExecution: async () => undefined,
    },
    // As the router composes them: call events outermost, then the scrubbing of the call's secret values.
    transports: interceptTransports(createTransportSelector({ byProtocol: { mcp } }), [
      callEvents({ sink }),
      scrubSecrets(),
    ]),
    events: sink,
  });
  const tool = (forward: string, name: string): ToolReference => ({
    name: `${forward}_${name}`,
    uri: mcpToolUri(forward, name),
    type: forward,
    inputSchema: { type: "object", properties: {} },
  });

  afterAll(async () => {
    await mcp.close();
    expect(JSON.stringify(events)).not.toContain(CANARY);
  });

  it("records STARTED then COMPLETED for a call that succeeds", async () => {
    events.length = 0;
    const result = await bridge.execute({ text: "hi" }, tool("fixture", "echo"), { requestId: "1" });
    expect(result).toEqual({ content: [{ type: "text", text: "hi" }] });
    expect(events.map((e) => e.type)).toEqual(["started", "completed"]);
    expect(events[0]).toMatchObject({
      toolName: "fixture_echo",
      toolType: "fixture",
      serviceId: "fwd-fixture",
    });
  });

  it("records FAILED with execution_error for an isError result, and the client reads the upstream's text", async () => {
    events.length = 0;
    const result = await bridge.execute({ message: "quota exceeded" }, tool("fixture", "fail"));
    expect(result.isError).toBe(true);
    expect(texts(result)).toEqual(["quota exceeded"]);
    expect(events[1]).toMatchObject({ type: "failed", errorCategory: "execution_error" });
  });

  it("records FAILED with service_unavailable for a server that will not start", async () => {
    events.length = 0;
    const result = await bridge.execute({}, tool("broken", "anything"));
    expect(result.isError).toBe(true);
    expect(texts(result).join(" ")).toContain("could not be started: the program was not found");
    expect(events[1]).toMatchObject({ type: "failed", errorCategory: "service_unavailable" });
  });
});
