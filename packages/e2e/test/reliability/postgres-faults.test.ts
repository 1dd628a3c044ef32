import { randomBytes } from "node:crypto";
import { type PostgresCluster, startPostgresCluster } from "@trestle/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RouterProcess,
  serviceHealthy,
  startRouter,
  stopAll,
} from "../support/processes.js";
import { type CapabilityProcess, killHard, startCapability } from "./support/capability.js";
import { type McpSession, openMcpSession, resultText } from "./support/mcp-session.js";
import { observe } from "./support/observations.js";

const tool = (name: string, uri: string, type: string) => ({
  name,
  description: `${name} (reliability suite)`,
  uri,
  type,
  inputSchema: { type: "object", properties: {} },
});

async function toolNames(url: string): Promise<string[]> {
  return (await api<{ name: string }[]>(url, "GET", "/api/v1/tools")).map((t) => t.name).sort();
}

async function post(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; message?: string; retryAfter: string | null; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const envelope = JSON.parse(text) as { error: { message: string } | null };
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    text,
    ...(envelope.error ? { message: envelope.error.message } : {}),
  };
}

/** The sentence a write gets while the database is unreachable (reliability finding 2, fixed). */
const STORE_DOWN =
  /^The catalog store \(PostgreSQL\) is unavailable \((ECONN\w+|SQLSTATE \w+|connection lost)\); the change was not saved\. Try again once the database is reachable$/;

/** Two replicas on one PostgreSQL server: the database goes away and comes back, then a replica dies. */
describe("PostgreSQL outages and replica loss", () => {
  let cluster: PostgresCluster;
  let a: RouterProcess;
  let b: RouterProcess;
  let capability: CapabilityProcess;
  let sessionA: McpSession;
  /** The routers' database URL carries a password (the cluster trusts local connections and ignores it). */
  const password = `pw${randomBytes(8).toString("hex")}`;
  let databaseUrl: string;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    databaseUrl = cluster.url.replace("postgres://postgres@", `postgres://postgres:${password}@`);
    const env = { TRESTLE_SESSION_SECRET: randomBytes(32).toString("hex") };
    a = await startRouter(["--database-url", databaseUrl], env);
    b = await startRouter(["--database-url", databaseUrl], env);
    capability = await startCapability({ router: a.url, serviceName: "shared" });
    await api(a.url, "POST", "/api/v1/tools", tool("shared_echo", "fixture://echo", "shared"));
    await api(a.url, "POST", "/api/v1/tools", tool("shared_sleep", "fixture://sleep?ms=3000", "shared"));
    await serviceHealthy(a.url, "shared");
    await serviceHealthy(b.url, "shared");
    await eventually(async () => ((await toolNames(b.url)).length === 2 ? true : undefined));
    sessionA = await openMcpSession(`${a.url}/mcp`);
  }, 180_000);

  afterAll(async () => {
    await stopAll();
    await cluster?.destroy();
  });

  it("with PostgreSQL stopped, calls are served from memory and writes are refused and not applied later; then it resynchronises", async () => {
    await cluster.stop();
    const downSince = Date.now();

    // Calls keep being served, across several heartbeat and probe intervals without the database.
    let served = 0;
    while (Date.now() - downSince < 5_000) {
      const exchange = await sessionA.callTool("shared_echo", { n: served });
      expect(exchange.answer?.result?.isError, resultText(exchange)).toBeFalsy();
      served++;
    }
    const sessionB = await openMcpSession(`${b.url}/mcp`);
    expect((await sessionB.callTool("shared_echo")).answer?.result?.isError).toBeFalsy();
    expect((await sessionB.request("tools/list")).answer?.result?.tools).toHaveLength(2);
    expect(await toolNames(a.url)).toEqual(["shared_echo", "shared_sleep"]);

    const write = await post(a.url, "/api/v1/tools", tool("written_while_down", "fixture://echo", "shared"));
    // Refused with 503 and a sentence naming the store: never the driver's text, the address or the password.
    expect(write.status).toBe(503);
    expect(write.retryAfter).toMatch(/^\d+$/);
    expect(write.message).toMatch(STORE_DOWN);
    for (const leak of [password, databaseUrl, cluster.url, "127.0.0.1", "connect "])
      expect(write.text).not.toContain(leak);
    const namespace = await post(b.url, "/api/v1/namespaces", { name: "while-down" });
    expect(namespace.status).toBe(503);
    expect(namespace.message).toMatch(STORE_DOWN);
    expect(namespace.text).not.toContain(password);
    expect(await toolNames(a.url)).toEqual(["shared_echo", "shared_sleep"]);
    observe("postgres-down", {
      callsServedWhileDown: served,
      writeStatus: write.status,
      writeMessage: write.message,
      namespaceStatus: namespace.status,
    });

    await cluster.start();
    const backSince = Date.now();
    // Writes work again through either replica, and each replica sees the other's writes (LISTEN resumed).
    await eventually(
      async () =>
        (await post(a.url, "/api/v1/tools", tool("after_a", "fixture://echo", "shared"))).status === 200
          ? true
          : undefined,
      30_000,
      "a write through replica A succeeds",
    );
    await eventually(
      async () =>
        (await post(b.url, "/api/v1/tools", tool("after_b", "fixture://echo", "shared"))).status === 200
          ? true
          : undefined,
      30_000,
      "a write through replica B succeeds",
    );
    const all = ["after_a", "after_b", "shared_echo", "shared_sleep"];
    await eventually(
      async () => (JSON.stringify(await toolNames(a.url)) === JSON.stringify(all) ? true : undefined),
      30_000,
      "A sees B's write",
    );
    await eventually(
      async () => (JSON.stringify(await toolNames(b.url)) === JSON.stringify(all) ? true : undefined),
      30_000,
      "B sees A's write",
    );
    // The write refused during the outage was refused for good, not applied later.
    expect(await toolNames(a.url)).not.toContain("written_while_down");
    observe("postgres-recovered", { resynchronisedWithinMs: Date.now() - backSince });
    const after = await sessionB.callTool("after_a", { again: "yes" });
    expect(JSON.parse(resultText(after)).arguments).toEqual({ again: "yes" });
  }, 120_000);

  it("a replica killed mid-session: the client carries on on the other replica with its session id", async () => {
    expect((await sessionA.callTool("shared_echo", { on: "a" })).answer?.result?.isError).toBeFalsy();
    const call = sessionA.callTool("shared_sleep").then(
      (exchange) => exchange,
      (error: Error) => error,
    );
    await capability.waitForLine((l) => l.includes("fixture://sleep"), 10_000);
    await killHard(a);
    expect(await call).toBeInstanceOf(Error);

    // The same session, the same Mcp-Session-Id, now on replica B.
    const retried = await sessionA.callTool("shared_sleep", {}, `${b.url}/mcp`);
    expect(retried.status).toBe(200);
    expect(resultText(retried)).toBe("slept");
    const listed = await sessionA.request("tools/list", undefined, `${b.url}/mcp`);
    expect(listed.status).toBe(200);
    expect(listed.answer?.result?.tools?.map((t) => t.name).sort()).toEqual([
      "after_a",
      "after_b",
      "shared_echo",
      "shared_sleep",
    ]);
    const echoed = await sessionA.callTool("shared_echo", { on: "b" }, `${b.url}/mcp`);
    expect(JSON.parse(resultText(echoed)).arguments).toEqual({ on: "b" });
  }, 120_000);
});
