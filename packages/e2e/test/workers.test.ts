import { request } from "node:http";
import { type PostgresCluster, startPostgresCluster } from "@trestle/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RunningProcess,
  startFixtureCapability,
  startNode,
  stopAll,
  trestleCli,
} from "./support/processes.js";
import { sseEvents } from "./support/sse.js";

/** One HTTP exchange on a connection of its own, so that the cluster hands it to the next worker in turn. */
interface Exchange {
  status: number;
  worker: string | undefined;
  sessionId: string | undefined;
  body: string;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Exchange> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(text),
          ...headers,
        },
      },
      (res) => {
        let received = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          received += chunk;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            worker: res.headers["trestle-worker"] as string | undefined,
            sessionId: res.headers["mcp-session-id"] as string | undefined,
            body: received,
          }),
        );
      },
    );
    req.once("error", reject);
    req.end(text);
  });
}

/** The JSON-RPC result of a reply, JSON or the last SSE `data:` event. */
function resultOf(exchange: Exchange): { content?: { text?: string }[]; tools?: { name: string }[] } {
  const json = exchange.body.trimStart().startsWith("{")
    ? exchange.body
    : (sseEvents(exchange.body)
        .filter((e) => e.data !== "")
        .at(-1)?.data ?? "{}");
  return (JSON.parse(json) as { result?: object }).result ?? {};
}

const PROTOCOL = "2025-06-18";

describe("trestle serve --workers 2 on PostgreSQL", () => {
  let cluster: PostgresCluster;
  let router: RunningProcess;
  let url: string;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    // The database URL through the environment: the primary takes it out of its own before anything starts,
    // and hands it to each worker it forks.
    router = startNode(trestleCli, ["serve", "--port", "0", "--workers", "2", "--log-level", "info"], {
      TRESTLE_PROBE_INTERVAL_MS: "1000",
      TRESTLE_DATABASE_URL: cluster.url,
    });
    const banner = await router.waitForLine((l) => l.includes("with 2 workers"), 120_000);
    url = (/serving MCP at (http:\/\/\S+?)\/mcp/.exec(banner) as RegExpExecArray)[1] as string;
    await startFixtureCapability(url, ["--service-name", "shared"]);
    await api(url, "POST", "/api/v1/tools", {
      name: "shared_echo",
      description: "echo (workers test)",
      uri: "fixture://echo",
      type: "shared",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
    });
  }, 180_000);

  afterAll(async () => {
    await stopAll();
    await cluster?.destroy();
  });

  it("serves a session created on one worker from the other, with the calls answered", async () => {
    const init = await post(`${url}/mcp`, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "workers", version: "1" } },
    });
    expect(init.status).toBe(200);
    expect(init.sessionId).toBeTruthy();
    expect(init.worker).toMatch(/^[12]$/);
    const session = { "mcp-session-id": init.sessionId as string, "mcp-protocol-version": PROTOCOL };
    await post(`${url}/mcp`, { jsonrpc: "2.0", method: "notifications/initialized" }, session);

    // Each call on a new connection: the cluster hands connections to the workers in turn. The tool must be
    // served (registered and healthy) on a worker before its answer counts; keep calling until the other
    // worker, not the one that made the session, has answered it.
    const answeredBy = new Set<string>();
    let id = 2;
    await eventually(
      async () => {
        const n = id++;
        const call = await post(
          `${url}/mcp`,
          {
            jsonrpc: "2.0",
            id: n,
            method: "tools/call",
            params: { name: "shared_echo", arguments: { text: `hello ${n}` } },
          },
          session,
        );
        // A session unknown to a worker would be 404; the session itself must never be refused.
        expect(call.status).toBe(200);
        // The fixture's echo answers with the arguments it was given, as JSON.
        const echoed = resultOf(call).content?.[0]?.text;
        const text = echoed?.startsWith("{")
          ? (JSON.parse(echoed) as { arguments?: { text?: string } }).arguments?.text
          : undefined;
        if (text === `hello ${n}` && call.worker) answeredBy.add(call.worker);
        return answeredBy.size === 2 ? true : undefined;
      },
      60_000,
      "calls of one session answered by both workers",
    );
    expect([...answeredBy].sort()).toEqual(["1", "2"]);
  }, 120_000);

  it("brings a catalog change made through one worker to both", async () => {
    const tool = `late_${Date.now()}`;
    await api(url, "POST", "/api/v1/tools", {
      name: tool,
      description: "added while both workers run",
      uri: "fixture://echo",
      type: "shared",
      inputSchema: { type: "object", properties: {} },
    });
    const init = await post(`${url}/mcp`, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "workers", version: "1" } },
    });
    const session = { "mcp-session-id": init.sessionId as string, "mcp-protocol-version": PROTOCOL };
    const listedBy = new Set<string>();
    let id = 2;
    await eventually(
      async () => {
        const list = await post(`${url}/mcp`, { jsonrpc: "2.0", id: id++, method: "tools/list" }, session);
        expect(list.status).toBe(200);
        if (list.worker && resultOf(list).tools?.some((t) => t.name === tool)) listedBy.add(list.worker);
        return listedBy.size === 2 ? true : undefined;
      },
      30_000,
      "the new tool listed by both workers",
    );
    expect([...listedBy].sort()).toEqual(["1", "2"]);
  }, 60_000);

  it("refuses more than one worker on the embedded store, saying what to use instead", async () => {
    const refused = startNode(trestleCli, ["serve", "--port", "0", "--workers", "2", "--memory-store"]);
    const exited = new Promise<number | null>((resolve) => {
      if (refused.child.exitCode !== null) resolve(refused.child.exitCode);
      else refused.child.once("exit", (code) => resolve(code));
    });
    expect(await exited).toBe(2);
    expect(refused.lines.join("\n")).toContain("--workers 2 needs a PostgreSQL store (--database-url");
  });
});
