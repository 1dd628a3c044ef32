import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@trestle/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RouterProcess,
  serviceHealthy,
  startRouter,
  stopAll,
} from "../support/processes.js";
import { type CapabilityProcess, startCapability } from "./support/capability.js";
import { type McpExchange, openMcpSession, postMcp, resultText } from "./support/mcp-session.js";
import { observe } from "./support/observations.js";
import { profile } from "./support/profile.js";

const tool = (name: string, uri: string, type: string) => ({
  name,
  description: `${name} (reliability suite)`,
  uri,
  type,
  inputSchema: { type: "object", properties: {} },
});

/** The catalog as the management API lists it, in a stable order. */
async function catalogListing(url: string): Promise<unknown> {
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  const list = async (path: string) => (await api<{ name: string }[]>(url, "GET", path)).sort(byName);
  return {
    tools: await list("/api/v1/tools"),
    teamTools: await list("/api/v1/tools?namespace=team-a"),
    resources: await list("/api/v1/resources"),
    prompts: await list("/api/v1/prompts"),
    namespaces: await list("/api/v1/namespaces"),
  };
}

function exited(router: RouterProcess): Promise<number | null> {
  const { child } = router;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("the router's own lifecycle", () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "trestle-reliability-data-"));
  });

  afterAll(async () => {
    await stopAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("a router restarted on its data directory keeps its catalog, and capabilities re-register by themselves", async () => {
    const port = await freePort();
    const args = ["--data-dir", dataDir, "--port", String(port)];
    let router = await startRouter(args);
    const capability = await startCapability({ router: router.url, serviceName: "steady" });
    await api(router.url, "POST", "/api/v1/namespaces", { name: "team-a" });
    await api(router.url, "POST", "/api/v1/tools", tool("steady_echo", "fixture://echo", "steady"));
    await api(router.url, "POST", "/api/v1/tools", {
      ...tool("team_echo", "fixture://echo", "steady"),
      namespace: "team-a",
      labels: { team: "a" },
    });
    await api(router.url, "POST", "/api/v1/resources", {
      name: "notes",
      location: "test://notes",
      type: "steady",
      description: "Notes",
    });
    await api(router.url, "POST", "/api/v1/prompts", {
      name: "greet",
      description: "Greets",
      messages: [{ role: "user", content: { type: "text", text: "Hello {{name}}" } }],
      arguments: [{ name: "name", description: "who", required: true }],
    });
    await serviceHealthy(router.url, "steady");
    const before = await catalogListing(router.url);

    expect(await router.stop()).toBe(0);
    router = await startRouter(args);

    expect(await catalogListing(router.url)).toEqual(before);
    await serviceHealthy(router.url, "steady");
    const session = await openMcpSession(`${router.url}/mcp`);
    const exchange = await session.callTool("steady_echo", { after: "restart" });
    expect(exchange.answer?.result?.isError).toBeFalsy();
    expect(JSON.parse(resultText(exchange)).arguments).toEqual({ after: "restart" });
    const team = await openMcpSession(`${router.url}/team-a/mcp`);
    expect((await team.request("tools/list")).answer?.result?.tools?.map((t) => t.name)).toEqual([
      "team_echo",
    ]);
    // The same process kept itself registered: no restart of the capability was needed.
    expect(capability.child.exitCode).toBeNull();
    const services = await api<{ target: { serviceName: string } }[]>(
      router.url,
      "GET",
      "/api/v1/capabilities",
    );
    expect(services.filter((s) => s.target.serviceName === "steady")).toHaveLength(1);
    await router.stop();
    await capability.stop();
  }, 120_000);

  it("SIGTERM under load: calls in flight finish, new calls are refused cleanly, the router exits 0", async () => {
    const router = await startRouter([], { TRESTLE_DRAIN_TIMEOUT_MS: "60000" });
    const slow: CapabilityProcess = await startCapability({ router: router.url, serviceName: "slow" });
    await api(router.url, "POST", "/api/v1/tools", tool("slow", "fixture://sleep?ms=6000", "slow"));
    await serviceHealthy(router.url, "slow");
    const endpoint = `${router.url}/mcp`;
    const sessions = await Promise.all(Array.from({ length: 4 }, () => openMcpSession(endpoint)));

    const inFlight = Array.from({ length: profile.drainCalls }, (_, i) =>
      (sessions[i % sessions.length] as (typeof sessions)[number]).callTool("slow"),
    );
    await eventually(
      () =>
        slow.lines.filter((l) => l.includes('"event":"invoked"')).length === profile.drainCalls
          ? true
          : undefined,
      30_000,
      "every call reached the capability",
    );
    const exit = exited(router);
    process.kill(router.child.pid as number, "SIGTERM");
    await eventually(
      async () => {
        try {
          return (await fetch(`${router.url}/readyz`)).status === 503 ? true : undefined;
        } catch {
          return true; // no longer accepting connections
        }
      },
      10_000,
      "the router stops being ready",
    );

    const refusals: string[] = [];
    for (let i = 0; i < 10; i++) {
      const session = sessions[i % sessions.length] as (typeof sessions)[number];
      try {
        const exchange: McpExchange = await session.callTool("slow");
        refusals.push(`${exchange.status} ${exchange.answer?.error?.message ?? exchange.text.slice(0, 80)}`);
      } catch (error) {
        refusals.push(`refused: ${((error as Error).cause as { code?: string } | undefined)?.code}`);
      }
    }
    observe("sigterm-under-load", { inFlight: profile.drainCalls, refusals });
    // Refused: 503 on an open connection, no connection for a new one (or, racing the close of an idle pooled
    // connection, a socket closed before the request went out: by a FIN, or by a reset when the router destroys it).
    for (const refusal of refusals)
      expect(refusal).toMatch(/^(503 .*shutting down|refused: (ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET))/);

    const results = await Promise.all(inFlight);
    for (const result of results) {
      expect(result.status).toBe(200);
      expect(result.answer?.result?.isError).toBeFalsy();
      expect(resultText(result)).toBe("slept");
    }
    expect(await exit).toBe(0);
    // None of the refused calls reached the capability.
    expect(slow.lines.filter((l) => l.includes('"event":"invoked"'))).toHaveLength(profile.drainCalls);
    expect(router.lines.some((l) => l.includes('"router stopped"'))).toBe(true);
    // A fresh request after the exit finds nothing listening.
    await expect(postMcp(endpoint, "{}")).rejects.toThrow();
  }, 120_000);
});
