import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import {
  api,
  echoTool,
  repoRoot,
  serviceHealthy,
  startNode,
  startRouter,
  startToolInvoker,
  stopAll,
} from "./support/processes.js";

/** V8 reports each allocation site it decides to allocate in the old generation with this. */
const TRACE = "--trace-pretenuring-statistics";
const pretenured = (lines: readonly string[]) => lines.filter((line) => line.includes("=> tenure"));

describe("a routed call's garbage dies young", () => {
  afterAll(stopAll);

  it("control: V8's trace reports pretenuring where a literal's objects survive (this Node prints it)", async () => {
    const probe = startNode(join(repoRoot, "packages", "e2e", "fixtures", "pretenuring-probe.mjs"), [], {}, [
      TRACE,
    ]);
    await probe.waitForLine((line) => line.includes('"kept"'));
    await probe.stop();
    expect(pretenured(probe.lines).length).toBeGreaterThan(0);
  });

  it("no allocation site of the router is pretenured while it routes calls", async () => {
    // Pretenured call objects would hold each call's young objects from the old generation, where a young
    // collection cannot see them die: the whole call would survive (serve-command.ts, collectCallsYoung).
    const router = await startRouter([], {}, [TRACE]);
    await startToolInvoker(router.url, "fixture-grpc", "grpc");
    await api(router.url, "POST", "/api/v1/tools", echoTool("echo", "fixture-grpc"));
    await serviceHealthy(router.url, "fixture-grpc");
    const clients = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const client = new Client({ name: "e2e", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
        return client;
      }),
    );
    let answered = 0;
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; i < 200; i++) {
          const result = await client.callTool({ name: "echo", arguments: { city: `city-${c}-${i}` } });
          if (!result.isError) answered++;
        }
        await client.close();
      }),
    );
    expect(answered).toBe(16 * 200);
    expect(pretenured(router.lines)).toEqual([]);
  }, 180_000);

  it("a routed call makes no AbortSignal (on Node 20 each gets a hidden class of its own)", async () => {
    const counter = join(repoRoot, "packages", "e2e", "fixtures", "abort-signal-counter.mjs");
    const router = await startRouter([], {}, ["--import", counter]);
    await startToolInvoker(router.url, "fixture-grpc", "grpc");
    await api(router.url, "POST", "/api/v1/tools", echoTool("echo", "fixture-grpc"));
    await serviceHealthy(router.url, "fixture-grpc");
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
    // The counter prints a report line on each SIGUSR2; the newest one is the count now.
    const reports = () => router.lines.filter((line) => line.startsWith("abort-signals "));
    const signalsMade = async () => {
      const asked = reports().length + 1;
      router.child.kill("SIGUSR2");
      await router.waitForLine(() => reports().length >= asked);
      return Number(reports()[asked - 1]?.slice("abort-signals ".length));
    };
    await client.callTool({ name: "echo", arguments: { city: "warm-up" } });
    const before = await signalsMade();
    const calls = 400;
    for (let i = 0; i < calls; i++) {
      const result = await client.callTool({ name: "echo", arguments: { city: `city-${i}` } });
      expect(result.isError).toBeFalsy();
    }
    const after = await signalsMade();
    await client.close();
    // What the router does beside the calls (health probes each second) may make a few; a call makes none.
    expect(after - before).toBeLessThan(calls / 10);
  }, 120_000);
});
