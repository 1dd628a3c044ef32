import { Agent } from "node:http";
import { echoTool } from "../configurations.js";
import { type LatencySummary, summariseLatencies } from "../latency-summary.js";
import { createMcpHttpClient, type JsonRpcMessage } from "../mcp-http-client.js";
import type { PostgresCluster } from "../postgres-cluster.js";
import { manage, type RouterProcess, startRouter } from "../router-process.js";

/** Time for a tool added on one replica to reach a client of another. */
export interface CrossReplicaMeasurement {
  changes: number;
  /** From the management call on replica A to `notifications/tools/list_changed` on B's GET stream. */
  notified: LatencySummary;
  /** From the management call on replica A until tools/list on B lists the tool. */
  visible: LatencySummary;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts two routers on a new database of `cluster`, connects an MCP client (with its GET stream) to
 * replica B, then adds tools on replica A and times their arrival at the client.
 */
export async function runCrossReplica(
  cluster: PostgresCluster,
  changes: number,
  log: (line: string) => void,
): Promise<CrossReplicaMeasurement> {
  const databaseUrl = await cluster.createDatabase("trestle_bench_replicas");
  const routers: RouterProcess[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // One after the other: the first creates the schema.
    routers.push(await startRouter({ args: ["--database-url", databaseUrl] }));
    routers.push(await startRouter({ args: ["--database-url", databaseUrl] }));
    const [a, b] = routers as [RouterProcess, RouterProcess];
    log(`  replicas at ${a.url} and ${b.url}, one PostgreSQL database`);
    const client = createMcpHttpClient({ url: `${b.url}/mcp`, agent });
    await client.initialize();
    let onChanged: (() => void) | undefined;
    const stream = await client.openStream((message: JsonRpcMessage) => {
      if (message.method === "notifications/tools/list_changed") onChanged?.();
    });
    const notified: number[] = [];
    const visible: number[] = [];
    for (let i = 0; i < changes; i++) {
      const name = `replica_tool_${i}`;
      const changed = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no list_changed on replica B within 10 s (${name})`)),
          10_000,
        );
        onChanged = () => {
          clearTimeout(timer);
          resolve(performance.now());
        };
      });
      const start = performance.now();
      await manage(a.url, "POST", "/api/v1/tools", echoTool("echo-grpc", name));
      notified.push((await changed) - start);
      onChanged = undefined;
      for (;;) {
        const reply = await client.request("tools/list", {});
        const tools = (reply.result as { tools?: { name: string }[] } | undefined)?.tools ?? [];
        if (tools.some((t) => t.name === name)) break;
        if (performance.now() - start > 10_000)
          throw new Error(`${name} not listed on replica B within 10 s`);
        await sleep(5);
      }
      visible.push(performance.now() - start);
      await sleep(200);
    }
    stream.close();
    await client.terminate();
    return { changes, notified: summariseLatencies(notified), visible: summariseLatencies(visible) };
  } finally {
    agent.destroy();
    await Promise.allSettled(routers.map((r) => r.stop()));
  }
}
