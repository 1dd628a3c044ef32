import type { BridgeTransport, InputRequest, InputResponse } from "@trestle/core";
import { afterAll, describe, expect, it } from "vitest";
import { createMcpTransport } from "../src/index.js";
import { fixtureUpstream, mcpTarget, texts, toolCall } from "./support/upstreams.js";

/**
 * The upstream's requests for input (elicitation, roots) reach the call's `onInputRequest`, and the upstream is
 * told the router can answer them only when the call can.
 */
describe("MCP transport: the upstream's requests for input", () => {
  const transport: BridgeTransport = createMcpTransport({
    upstreamFor: () => fixtureUpstream([], { mode: "per-call" }),
  });

  afterAll(async () => {
    await transport.close();
  });

  it("go to the call's onInputRequest, whose answers the upstream gets", async () => {
    const asked: InputRequest[] = [];
    const result = await transport.callTool(toolCall("ask"), mcpTarget(), {
      onInputRequest: async (request): Promise<InputResponse> => {
        asked.push(request);
        return request.kind === "elicitation"
          ? { action: "accept", result: { name: "Ada" } }
          : { action: "accept", result: { roots: [{ uri: "file:///work", name: "work" }] } };
      },
    });
    expect(asked.map((r) => r.kind)).toEqual(["elicitation", "roots"]);
    expect(asked[0]?.params).toMatchObject({ message: "Your name?" });
    expect(JSON.parse(texts(result)[0] ?? "")).toEqual({
      answer: { action: "accept", content: { name: "Ada" } },
      roots: { roots: [{ uri: "file:///work", name: "work" }] },
    });
  });

  it("are not offered to the upstream when the call cannot answer them", async () => {
    const result = await transport.callTool(toolCall("ask"), mcpTarget());
    expect(texts(result)).toEqual(["cannot ask"]);
  });

  it("pass a declined elicitation on as declined", async () => {
    const result = await transport.callTool(toolCall("ask"), mcpTarget(), {
      onInputRequest: async (request): Promise<InputResponse> =>
        request.kind === "elicitation" ? { action: "decline" } : { action: "accept", result: { roots: [] } },
    });
    expect(JSON.parse(texts(result)[0] ?? "").answer).toEqual({ action: "decline" });
  });
});
