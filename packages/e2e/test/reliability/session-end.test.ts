import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresCluster, startPostgresCluster } from "@trestle/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, eventually, type RouterProcess, startRouter, stopAll } from "../support/processes.js";
import { type McpSession, openMcpSession } from "./support/mcp-session.js";

const VERSION = { "mcp-protocol-version": "2025-06-18" };

/** The client's `DELETE` of its session at `endpoint`: the status it got. */
async function endSession(endpoint: string, session: McpSession): Promise<number> {
  const response = await fetch(endpoint, {
    method: "DELETE",
    headers: { "mcp-session-id": session.sessionId, ...VERSION },
  });
  await response.body?.cancel();
  return response.status;
}

/** The status a `tools/list` in `session` gets at `endpoint`. */
async function statusAt(endpoint: string, session: McpSession): Promise<number> {
  return (await session.request("tools/list", undefined, endpoint)).status;
}

/**
 * A session a client ends with `DELETE` stays ended (404, as MCP requires of a terminated session) wherever its
 * sealed id is presented next: on another replica that held it, on one started later, after a restart.
 */
describe("a session's end", () => {
  const sessionSecret = { TRESTLE_SESSION_SECRET: randomBytes(32).toString("hex") };

  describe("on replicas sharing PostgreSQL and the session secret", () => {
    let cluster: PostgresCluster;
    let a: RouterProcess;
    let b: RouterProcess;

    beforeAll(async () => {
      cluster = await startPostgresCluster();
      a = await startRouter(["--database-url", cluster.url], sessionSecret);
      b = await startRouter(["--database-url", cluster.url], sessionSecret);
    }, 180_000);

    afterAll(async () => {
      await stopAll();
      await cluster?.destroy();
    });

    it("is refused by the replica that held it too, whose GET stream closes, and by one started later", async () => {
      const ended = await openMcpSession(`${a.url}/mcp`);
      const kept = await openMcpSession(`${a.url}/mcp`);
      // Replica B holds both sessions now, and a GET stream of the one about to end.
      expect(await statusAt(`${b.url}/mcp`, ended)).toBe(200);
      expect(await statusAt(`${b.url}/mcp`, kept)).toBe(200);
      const stream = await fetch(`${b.url}/mcp`, {
        headers: { accept: "text/event-stream", "mcp-session-id": ended.sessionId, ...VERSION },
      });
      expect(stream.status).toBe(200);
      const reader = stream.body?.getReader();
      const streamDone = (async () => {
        while (reader && !(await reader.read()).done);
        return true;
      })().catch(() => true);

      expect(await endSession(`${a.url}/mcp`, ended)).toBe(200);
      expect(await statusAt(`${a.url}/mcp`, ended)).toBe(404);
      await eventually(async () => ((await statusAt(`${b.url}/mcp`, ended)) === 404 ? true : undefined));
      expect(await streamDone).toBe(true);

      // A replica that never saw the session refuses it too; the other session carries on everywhere.
      const c = await startRouter(["--database-url", cluster.url], sessionSecret);
      expect(await statusAt(`${c.url}/mcp`, ended)).toBe(404);
      expect(await statusAt(`${c.url}/mcp`, kept)).toBe(200);
      expect(await statusAt(`${b.url}/mcp`, kept)).toBe(200);
    }, 120_000);

    it("of a deleted namespace is refused by a replica that never held it, once the name is taken again", async () => {
      await api(a.url, "POST", "/api/v1/namespaces", { name: "team" });
      const session = await openMcpSession(`${a.url}/team/mcp`);
      await api(a.url, "DELETE", "/api/v1/namespaces/team");
      await api(a.url, "POST", "/api/v1/namespaces", { name: "team" });
      await eventually(
        async () => (await api<unknown[]>(b.url, "GET", "/api/v1/namespaces")).length === 2 || undefined,
      );

      expect(await statusAt(`${b.url}/team/mcp`, session)).toBe(404);
      expect(await statusAt(`${a.url}/team/mcp`, session)).toBe(404);
      const renewed = await openMcpSession(`${a.url}/team/mcp`);
      expect(await statusAt(`${b.url}/team/mcp`, renewed)).toBe(200);
    }, 60_000);
  });

  describe("on the embedded store", () => {
    let dataDir: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "trestle-session-end-"));
    });

    afterAll(async () => {
      await stopAll();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("outlives a restart of the router on its data directory", async () => {
      const args = ["--data-dir", dataDir];
      const before = await startRouter(args, sessionSecret);
      const ended = await openMcpSession(`${before.url}/mcp`);
      const kept = await openMcpSession(`${before.url}/mcp`);
      expect(await endSession(`${before.url}/mcp`, ended)).toBe(200);
      await before.stop();

      const after = await startRouter(args, sessionSecret);
      expect(await statusAt(`${after.url}/mcp`, ended)).toBe(404);
      expect(await statusAt(`${after.url}/mcp`, kept)).toBe(200);
      await after.stop();
    }, 120_000);

    it("of a deleted namespace stays refused after a restart, once the name is taken again", async () => {
      const args = ["--data-dir", dataDir];
      const before = await startRouter(args, sessionSecret);
      await api(before.url, "POST", "/api/v1/namespaces", { name: "team" });
      const session = await openMcpSession(`${before.url}/team/mcp`);
      await api(before.url, "DELETE", "/api/v1/namespaces/team");
      await api(before.url, "POST", "/api/v1/namespaces", { name: "team" });
      expect(await statusAt(`${before.url}/team/mcp`, session)).toBe(404);
      await before.stop();

      const after = await startRouter(args, sessionSecret);
      expect(await statusAt(`${after.url}/team/mcp`, session)).toBe(404);
      const renewed = await openMcpSession(`${after.url}/team/mcp`);
      expect(await statusAt(`${after.url}/team/mcp`, renewed)).toBe(200);
    }, 120_000);
  });
});
