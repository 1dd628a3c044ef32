import {
  callEvents,
  createClientLegs,
  createEventHub,
  createInvokerBridge,
  interceptTransports,
} from "@trestle/bridge";
import type { ToolReference, ToolResult } from "@trestle/core";
import type { ToolCallCompletedEvent, ToolCallEvent, ToolCallFailedEvent } from "@trestle/core/events";
import { createInMemoryNetwork, createInMemoryTransport } from "@trestle/core/in-memory";
import { createTransportSelector, type ServiceResolver } from "@trestle/core/routing";
import { describe, expect, it } from "vitest";
import { revisionNotes } from "./revision-notes.js";
import { encodeToolResult } from "./wire/results.js";

const RICH: ToolResult = {
  content: [
    { type: "text", text: "Sunny" },
    { type: "audio", data: "AAAA", mimeType: "audio/wav" },
    { type: "resource_link", uri: "file:///q3.pdf", name: "q3.pdf" },
  ],
  structuredContent: { temperature: 21.5 },
};
const TOOL: ToolReference = {
  name: "weather",
  type: "fixture",
  uri: "fixture://weather",
  inputSchema: { type: "object" },
};

/** An invoker bridge over a service answering `RICH`, its calls recorded into a hub that `follow` reads live. */
function bridgeWith(interceptors: "notes" | "none") {
  const network = createInMemoryNetwork();
  const served = network.serve({ callTool: () => structuredClone(RICH) }, { serviceName: "fixture" });
  const resolver: ServiceResolver = {
    resolve: async () => served.target,
    resolveCodeExecution: async () => served.target,
  };
  const events = createEventHub();
  const followed: ToolCallEvent[] = [];
  // Someone follows the event stream: each event is built the moment it happens, not when the history is read.
  events.subscribe((event) => {
    followed.push(event);
  });
  const selector = createTransportSelector({ byProtocol: { grpc: createInMemoryTransport({ network }) } });
  const transports = interceptTransports(
    selector,
    interceptors === "notes"
      ? [callEvents({ sink: events }), revisionNotes()]
      : [callEvents({ sink: events })],
  );
  return { invoker: createInvokerBridge({ resolver, transports, events }), followed };
}

const legs = createClientLegs();

const isTerminal = (event: ToolCallEvent): event is ToolCallCompletedEvent | ToolCallFailedEvent =>
  event.type !== "started";

async function terminalEvent(
  followed: ToolCallEvent[],
): Promise<ToolCallCompletedEvent | ToolCallFailedEvent> {
  for (let i = 0; i < 50 && !followed.some(isTerminal); i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const ended = followed.find(isTerminal);
  if (!ended) throw new Error("no terminal event");
  return ended;
}

describe("revisionNotes", () => {
  it("writes what a 2024-11-05 client loses on the call's event, built at once, and leaves the result as it was", async () => {
    const { invoker, followed } = bridgeWith("notes");
    const result = await invoker.execute({}, TOOL, { client: legs("mcp", "2024-11-05", "tools/call") });
    expect(result).toEqual(RICH);
    const event = await terminalEvent(followed);
    expect(event.translation?.notes).toEqual(encodeToolResult(RICH, "2024-11-05").notes);
    expect(event.translation?.notes.map((n) => n.what)).toEqual([
      "content[1] (audio)",
      "content[2] (resource_link)",
      "structuredContent",
    ]);
  });

  it("writes nothing for a client whose revision carries everything", async () => {
    for (const revision of ["2025-11-25", "2026-07-28"]) {
      const { invoker, followed } = bridgeWith("notes");
      await invoker.execute({}, TOOL, { client: legs("mcp", revision, "tools/call") });
      expect((await terminalEvent(followed)).translation?.notes).toEqual([]);
    }
  });

  it("is what puts the notes there: without it, the event of the same call has none", async () => {
    const { invoker, followed } = bridgeWith("none");
    await invoker.execute({}, TOOL, { client: legs("mcp", "2024-11-05", "tools/call") });
    expect((await terminalEvent(followed)).translation?.notes).toEqual([]);
  });
});
