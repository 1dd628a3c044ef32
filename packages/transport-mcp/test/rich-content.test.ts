import type { BridgeTransport } from "@trestle/core";
import { afterAll, describe, expect, it } from "vitest";
import { createMcpTransport } from "../src/index.js";
import { RICH_RESULT as RICH } from "./fixtures/rich-result.mjs";
import {
  fixtureUpstream,
  mcpTarget,
  type RunningServer,
  startFixtureHttp,
  toolCall,
} from "./support/upstreams.js";

/**
 * A forwarded tool's result is core's ToolResult, which is MCP's content model: it comes back exactly as the
 * upstream sent it, no block turned into a string on the way (a marker-prefixed JSON string, as an earlier
 * design carried them, fails the deep equality).
 */
describe("MCP transport: rich content passes through unchanged", () => {
  const transports: BridgeTransport[] = [];
  let http: RunningServer | undefined;

  afterAll(async () => {
    await Promise.all(transports.map((t) => t.close()));
    await http?.stop();
  });

  it.each(["stdio pooled", "stdio per-call", "Streamable HTTP"])("over %s", async (how) => {
    if (how === "Streamable HTTP") http ??= await startFixtureHttp();
    const upstream =
      how === "Streamable HTTP"
        ? (http as RunningServer).upstream
        : fixtureUpstream([], how === "stdio per-call" ? { mode: "per-call" } : {});
    const transport = createMcpTransport({ upstreamFor: () => upstream });
    transports.push(transport);
    const result = await transport.callTool(toolCall("rich"), mcpTarget());
    expect(result).toEqual(RICH);
    for (const block of result.content) expect(typeof block).toBe("object");
  });
});
