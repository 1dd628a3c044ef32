import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest, openLegacySession } from "../support/mcp-wire.js";
import { api, type RouterProcess, repoRoot, startNode, startRouter, stopAll } from "../support/processes.js";

const FIXTURE_AGENT = join(repoRoot, "packages", "transport-a2a", "test", "fixtures", "fixture-agent.mjs");

/** An A2A agent on the gRPC binding (its card over HTTP, its calls over gRPC) behind the router. */
describe("an @a2a-js/sdk agent on the gRPC binding, behind the router", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter();
    const agent = startNode(FIXTURE_AGENT, ["--binding", "GRPC"]);
    const line = await agent.waitForLine((l) => l.includes('"ready"'), 30_000);
    const url = (JSON.parse(line) as { url: string }).url;
    const view = await api<{ status: { state: string } }>(router.url, "POST", "/api/v1/forwards", {
      name: "grpc-agent",
      prefix: "g_",
      a2a: { url },
    });
    expect(view.status.state).toBe("ready");
  }, 120_000);

  afterAll(stopAll);

  it("answers MCP clients of both eras through it", async () => {
    const modern = await modernRequest(`${router.url}/mcp`, "tools/call", {
      name: "g_echo",
      arguments: { message: "over grpc" },
    });
    expect(JSON.stringify(modern.body.result?.content)).toContain("echo: over grpc");
    const session = await openLegacySession(`${router.url}/mcp`, "2025-06-18");
    const legacy = await session.request("tools/call", { name: "g_echo", arguments: { message: "again" } });
    expect(JSON.stringify(legacy.body.result?.content)).toContain("echo: again");
    await session.close();
  });
});
