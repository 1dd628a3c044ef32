import { type PostgresCluster, startPostgresCluster } from "@trestle/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest, openListen } from "../support/mcp-wire.js";
import { api, type RouterProcess, startRouter, stopAll } from "../support/processes.js";

/**
 * Stateless MCP on replicas: a `subscriptions/listen` stream on one replica hears of a tool added through the
 * other (through the store's change feed), and any replica answers any stateless request.
 */
describe("subscriptions/listen across two replicas sharing PostgreSQL", () => {
  let cluster: PostgresCluster;
  let a: RouterProcess;
  let b: RouterProcess;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    [a, b] = await Promise.all([
      startRouter(["--database-url", cluster.url]),
      startRouter(["--database-url", cluster.url]),
    ]);
  }, 120_000);

  afterAll(async () => {
    await stopAll();
    await cluster?.destroy();
  });

  it("a tool added on one replica reaches a listen stream on the other within 1 s", async () => {
    const listen = await openListen(`${b.url}/mcp`, { toolsListChanged: true, promptsListChanged: true });
    try {
      const addedAt = Date.now();
      await api(a.url, "POST", "/api/v1/tools", {
        name: "added_on_a",
        uri: "fixture://simple-text",
        type: "nowhere",
        description: "A tool added through replica a",
        inputSchema: { type: "object", properties: {} },
      });
      const heard = await listen.waitFor("notifications/tools/list_changed", 5_000);
      expect(heard.at - addedAt).toBeLessThan(1_000);
      expect(heard.params?._meta).toEqual({ "io.modelcontextprotocol/subscriptionId": expect.any(String) });
      // Only what the stream asked for: no resource notification, and the acknowledgement came first.
      expect(listen.notifications[0]?.method).toBe("notifications/subscriptions/acknowledged");
      expect(listen.notifications.some((n) => n.method.startsWith("notifications/resources/"))).toBe(false);

      // The other replica lists the tool to a stateless client with no session at all.
      const listed = await modernRequest(`${b.url}/mcp`, "tools/list");
      expect(listed.status).toBe(200);
      const tools = (listed.body.result?.tools ?? []) as { name: string }[];
      expect(tools.map((t) => t.name)).toContain("added_on_a");
    } finally {
      listen.close();
    }
  }, 60_000);
});
