import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { ClassifiedMessage } from "../src/mcp/json-rpc.js";
import { type Exchange, McpDispatcher } from "../src/mcp/mcp-dispatcher.js";
import type { DirectRequestHandler } from "../src/mcp/namespace-server.js";
import { ProtocolError } from "../src/mcp/protocol-error.js";
import type { McpSession } from "../src/mcp/session-registry.js";

function recorder() {
  const responses: JSONRPCMessage[] = [];
  const notifications: JSONRPCMessage[] = [];
  let finished = 0;
  const exchange: Exchange = {
    respond: (m) => responses.push(m),
    notify: (m) => notifications.push(m),
    finish: () => {
      finished++;
    },
  };
  return { exchange, responses, notifications, finished: () => finished };
}

const call = (id: number | string, name = "echo"): ClassifiedMessage => ({
  kind: "request",
  message: { jsonrpc: "2.0", id, method: "tools/call", params: { name } } as ClassifiedMessage["message"],
});

const session = { id: "s1" } as McpSession;
const context = { namespace: "", session, headers: {} };
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("the dispatcher's direct handlers (no SDK Protocol in between)", () => {
  it("answers under the client's id, relays notifications tied to the request, and maps errors", async () => {
    const dispatcher = new McpDispatcher();
    const handler: DirectRequestHandler = async (request, extra) => {
      const name = (request.params as { name: string }).name;
      if (name === "bad") throw new ProtocolError(-32602, "Unknown tool: bad", { name });
      if (name === "boom") throw new Error("");
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: 1, progress: 1 },
      });
      return { content: [{ type: "text", text: name }] };
    };
    dispatcher.handleDirectly(new Map([["tools/call", handler]]));
    const seenBySdk: JSONRPCMessage[] = [];
    dispatcher.onmessage = (m) => seenBySdk.push(m);

    const r = recorder();
    dispatcher.dispatch([call("a"), call(7, "bad"), call("c", "boom")], context, r.exchange);
    await settle();
    expect(seenBySdk).toEqual([]);
    expect(r.responses).toEqual(
      expect.arrayContaining([
        { jsonrpc: "2.0", id: "a", result: { content: [{ type: "text", text: "echo" }] } },
        {
          jsonrpc: "2.0",
          id: 7,
          error: { code: -32602, message: "Unknown tool: bad", data: { name: "bad" } },
        },
        { jsonrpc: "2.0", id: "c", error: { code: -32603, message: "Internal error" } },
      ]),
    );
    expect(r.notifications).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
    ]);
    expect(r.finished()).toBe(1);
    expect(dispatcher.inFlightCount).toBe(0);
  });

  it("aborts the handler when the client cancels the request or goes away, and sends nothing for it", async () => {
    const dispatcher = new McpDispatcher();
    const reasons: unknown[] = [];
    dispatcher.handleDirectly(
      new Map([
        [
          "tools/call",
          (_request, extra) =>
            new Promise((resolve) =>
              extra.signal.addEventListener("abort", () => {
                reasons.push(extra.signal.reason);
                resolve({ content: [] });
              }),
            ),
        ],
      ]),
    );
    const cancelled = recorder();
    dispatcher.dispatch([call("x")], context, cancelled.exchange);
    await settle();
    dispatcher.dispatch(
      [
        {
          kind: "notification",
          message: {
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: "x", reason: "user stopped it" },
          } as ClassifiedMessage["message"],
        },
      ],
      context,
      recorder().exchange,
    );
    const gone = recorder();
    const state = dispatcher.dispatch([call("y")], context, gone.exchange);
    await settle();
    dispatcher.abandon(state);
    await settle();
    expect(reasons).toEqual(["user stopped it", "The client closed the connection"]);
    expect(cancelled.responses).toEqual([]);
    expect(cancelled.finished()).toBe(1);
    expect(gone.responses).toEqual([]);
    expect(dispatcher.inFlightCount).toBe(0);
  });

  it("hands every other method to the SDK's Protocol", () => {
    const dispatcher = new McpDispatcher();
    dispatcher.handleDirectly(new Map([["tools/call", () => ({})]]));
    const seenBySdk: JSONRPCMessage[] = [];
    dispatcher.onmessage = (m) => seenBySdk.push(m);
    dispatcher.dispatch(
      [
        {
          kind: "request",
          message: { jsonrpc: "2.0", id: 1, method: "tools/list" } as ClassifiedMessage["message"],
        },
      ],
      context,
      recorder().exchange,
    );
    expect(seenBySdk).toMatchObject([{ method: "tools/list" }]);
  });
});
