import { createInMemoryNetwork, createInMemoryTransport } from "@trestle/core/in-memory";
import { describe, expect, it } from "vitest";
import { lazyTransport } from "../src/lazy-transport.js";

describe("lazyTransport", () => {
  it("loads its transport on the first call only, once, and then calls through it", async () => {
    const network = createInMemoryNetwork();
    const served = network.serve(
      { callTool: async (call) => ({ content: [{ type: "text", text: String(call.arguments.text) }] }) },
      { serviceName: "echo", serviceType: "tool-invoker" },
    );
    let loads = 0;
    const transport = lazyTransport(async () => {
      loads++;
      return createInMemoryTransport({ network });
    });
    transport.release?.(served.target);
    expect(loads).toBe(0);
    const call = (text: string) =>
      transport.callTool(
        { tool: { name: "echo", type: "echo", uri: "echo://" }, arguments: { text }, metadata: {} },
        served.target,
      );
    const [a, b] = await Promise.all([call("a"), call("b")]);
    expect([a.content[0], b.content[0]]).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "b" },
    ]);
    expect(loads).toBe(1);
    await transport.close();
    await served.close();
  });

  it("closes without loading anything when it was never used", async () => {
    let loads = 0;
    const transport = lazyTransport(async () => {
      loads++;
      return createInMemoryTransport({ network: createInMemoryNetwork() });
    });
    await transport.close();
    expect(loads).toBe(0);
  });

  it("describes a tool call without loading, by the rules it was given, then as the loaded transport does", async () => {
    const network = createInMemoryNetwork();
    const served = network.serve(
      {
        describeToolCall: () => ({ secretValues: ["from-the-loaded-transport"], record: () => record }),
        callTool: async () => ({ content: [] }),
      },
      { serviceName: "svc", serviceType: "tool-invoker" },
    );
    const record = { arguments: {}, headers: {}, body: "" };
    let loads = 0;
    const transport = lazyTransport(
      async () => {
        loads++;
        return createInMemoryTransport({ network });
      },
      { describeToolCall: () => ({ secretValues: ["from-the-given-rules"], record: () => record }) },
    );
    const call = { tool: { name: "t", type: "svc", uri: "x://" }, arguments: {} };
    expect(transport.describeToolCall?.(call, served.target)?.secretValues).toEqual(["from-the-given-rules"]);
    expect(loads).toBe(0);
    await transport.callTool(call, served.target);
    expect(transport.describeToolCall?.(call, served.target)?.secretValues).toEqual([
      "from-the-loaded-transport",
    ]);
    // Without rules of its own, a lazy transport describes nothing: arguments go as they are.
    expect(lazyTransport(async () => createInMemoryTransport({ network })).describeToolCall).toBeUndefined();
    await transport.close();
    await served.close();
  });
});
