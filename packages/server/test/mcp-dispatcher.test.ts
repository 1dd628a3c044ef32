import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Cancellation } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { callerPrincipal } from "../src/calls/caller.js";
import type { ClassifiedMessage } from "../src/mcp/json-rpc.js";
import { type Exchange, McpDispatcher } from "../src/mcp/mcp-dispatcher.js";
import type { McpRequestHandler } from "../src/mcp/namespace-server.js";
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
const context = { namespace: "", session, headers: {}, principal: callerPrincipal({ id: "alice" }) };
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

/** A handler that runs until its request is aborted, then tells `onAbort` and answers with no content. */
const untilAborted =
  (onAbort: (request: { params?: unknown }, cancellation: Cancellation) => void): McpRequestHandler =>
  (request, extra) =>
    new Promise((resolve) =>
      extra.cancellation.onAbort(() => {
        onAbort(request, extra.cancellation);
        resolve({ content: [] });
      }),
    );

describe("the dispatcher over one method table (no SDK Protocol in between)", () => {
  it("answers under the client's id, relays notifications tied to the request, and maps errors", async () => {
    const handler: McpRequestHandler = async (request, extra) => {
      const name = (request.params as { name: string }).name;
      if (name === "bad") throw new ProtocolError(-32602, "Unknown tool: bad", { name });
      if (name === "boom") throw new Error("");
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: 1, progress: 1 },
      });
      return { content: [{ type: "text", text: name }] };
    };
    const dispatcher = new McpDispatcher(new Map([["tools/call", handler]]));

    const r = recorder();
    dispatcher.dispatch([call("a"), call(7, "bad"), call("c", "boom")], context, r.exchange);
    await settle();
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
    const reasons: unknown[] = [];
    const dispatcher = new McpDispatcher(
      new Map([["tools/call", untilAborted((_request, cancellation) => reasons.push(cancellation.reason))]]),
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

  it("tells a numeric id from the same digits as a string when the client cancels, and close() cancels the rest", async () => {
    const aborted: unknown[] = [];
    const dispatcher = new McpDispatcher(
      new Map([
        ["tools/call", untilAborted((request) => aborted.push((request.params as { name: string }).name))],
      ]),
    );
    const numeric = recorder();
    const textual = recorder();
    dispatcher.dispatch([call(1, "numeric")], context, numeric.exchange);
    dispatcher.dispatch([call("1", "textual")], context, textual.exchange);
    await settle();
    expect(dispatcher.inFlightCount).toBe(2);
    const cancel = (requestId: number | string): ClassifiedMessage => ({
      kind: "notification",
      message: {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId },
      } as ClassifiedMessage["message"],
    });
    dispatcher.dispatch([cancel(1)], context, recorder().exchange);
    await settle();
    expect(aborted).toEqual(["numeric"]);
    expect(numeric.finished()).toBe(1);
    expect(textual.finished()).toBe(0);
    dispatcher.close();
    await settle();
    expect(aborted).toEqual(["numeric", "textual"]);
    expect(dispatcher.inFlightCount).toBe(0);
    expect(textual.responses).toEqual([]);
  });

  it("answers a method the table lacks with -32601 naming it, and gives handlers the request's origin", async () => {
    const origins: unknown[] = [];
    const dispatcher = new McpDispatcher(
      new Map<string, McpRequestHandler>([
        [
          "tools/list",
          (_request, extra) => {
            origins.push({ id: extra.origin.originalId, session: extra.origin.session?.id });
            return { tools: [] };
          },
        ],
      ]),
    );
    const r = recorder();
    dispatcher.dispatch(
      [
        {
          kind: "request",
          message: { jsonrpc: "2.0", id: 1, method: "tools/list" } as ClassifiedMessage["message"],
        },
        {
          kind: "request",
          message: { jsonrpc: "2.0", id: 2, method: "tools/teleport" } as ClassifiedMessage["message"],
        },
        {
          kind: "notification",
          message: { jsonrpc: "2.0", method: "notifications/initialized" } as ClassifiedMessage["message"],
        },
      ],
      context,
      r.exchange,
    );
    await settle();
    expect(r.responses).toEqual([
      {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32601, message: "Method not found: tools/teleport" },
      },
      { jsonrpc: "2.0", id: 1, result: { tools: [] } },
    ]);
    expect(origins).toEqual([{ id: 1, session: "s1" }]);
    expect(r.finished()).toBe(1);
  });
});
