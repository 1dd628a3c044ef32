import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type PostgresCluster, startPostgresCluster } from "@trestle/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, eventually, type RouterProcess, repoRoot, startRouter, stopAll } from "./support/processes.js";

const FIXTURE_SERVER = join(repoRoot, "packages", "transport-mcp", "test", "fixtures", "fixture-server.mjs");

interface ForwardView {
  name: string;
  status: { state: string; imported: { tools: number } };
}

async function callEcho(url: string, text: string): Promise<unknown> {
  const client = new Client({ name: "e2e-forward-replicas", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/shared/mcp`)));
  try {
    return await client.callTool({ name: "rep_echo", arguments: { text } });
  } finally {
    await client.close();
  }
}

describe("forwards on two replicas sharing PostgreSQL", () => {
  let cluster: PostgresCluster;
  let a: RouterProcess;
  let b: RouterProcess;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    // Every replica holds the same secrets key: a forward's upstream is stored encrypted with it.
    const key = { TRESTLE_SECRETS_KEY: "forwards-replicas-secrets-key-0123456789" };
    [a, b] = await Promise.all([
      startRouter(["--database-url", cluster.url], key),
      startRouter(["--database-url", cluster.url], key),
    ]);
  }, 120_000);

  afterAll(async () => {
    await stopAll();
    await cluster?.destroy();
  });

  it("a forward added on one replica is imported once and served by the other, and removed from both", async () => {
    await api(a.url, "POST", "/api/v1/namespaces", { name: "shared" });
    const added = await api<ForwardView>(a.url, "POST", "/api/v1/forwards", {
      name: "replicated",
      namespace: "shared",
      prefix: "rep_",
      upstream: { kind: "stdio", command: process.execPath, args: [FIXTURE_SERVER], cwd: repoRoot },
    });
    expect(added.status.state).toBe("ready");

    // The other replica follows the forward through the change feed: it connects to the upstream itself.
    const onB = await eventually(
      async () => {
        const views = await api<ForwardView[]>(b.url, "GET", "/api/v1/forwards?namespace=shared");
        return views.find((v) => v.name === "replicated" && v.status.state === "ready");
      },
      30_000,
      "the forward ready on the other replica",
    );
    expect(onB.status.imported.tools).toBe(added.status.imported.tools);
    const toolsOnB = await api<{ name: string }[]>(b.url, "GET", "/api/v1/tools?namespace=shared");
    expect(toolsOnB.filter((t) => t.name.startsWith("rep_"))).toHaveLength(added.status.imported.tools);

    const result = (await callEcho(b.url, "through b")) as { content: { text: string }[]; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(result.content[0]?.text).toBe("through b");

    // Both replicas import the same catalog: the store holds each entry once.
    const rows = await cluster.query<{ n: string }>(
      "SELECT count(*) AS n FROM trestle_catalog_entries WHERE namespace = 'shared' AND kind = 'tool'",
    );
    expect(Number(rows[0]?.n)).toBe(added.status.imported.tools);

    await api(a.url, "DELETE", "/api/v1/forwards/replicated?namespace=shared");
    await eventually(
      async () => {
        const views = await api<ForwardView[]>(b.url, "GET", "/api/v1/forwards?namespace=shared");
        const tools = await api<{ name: string }[]>(b.url, "GET", "/api/v1/tools?namespace=shared");
        return views.length === 0 && tools.length === 0 ? true : undefined;
      },
      15_000,
      "the forward and its tools gone from the other replica",
    );
  });
});
