import { spawn } from "node:child_process";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RouterProcess,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  stopAll,
  trestleCli,
} from "./support/processes.js";

/** A TCP relay in front of the router whose open connections can be cut, as a network failure would. */
async function startRelay(routerPort: number): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(routerPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () => {
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("trestle events tail across a dropped connection", () => {
  let router: RouterProcess;

  beforeAll(async () => {
    router = await startRouter();
    await startFixtureCapability(router.url, ["--service-name", "fixture", "--service-type", "tool-invoker"]);
    await serviceHealthy(router.url, "fixture");
    await api(router.url, "POST", "/api/v1/tools", { name: "echo", uri: "fixture://echo", type: "fixture" });
  }, 120_000);

  afterAll(async () => {
    await stopAll();
  });

  it("reconnects with Last-Event-ID and prints every call once, those made while it was away included", {
    timeout: 120_000,
  }, async () => {
    const relay = await startRelay(Number(new URL(router.url).port));
    const tail = spawn(
      process.execPath,
      [trestleCli, "events", "tail", "--json", "--tool", "echo", "--url", relay.url],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    tail.stdout.on("data", (d) => {
      out += d;
    });
    tail.stderr.on("data", (d) => {
      err += d;
    });
    const mcp = new Client({ name: "resume", version: "1" });
    try {
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
      const callEcho = () => mcp.callTool({ name: "echo", arguments: { city: "Vilnius" } });
      // The CLI connects in its own time: call until its first line shows up.
      await eventually(
        async () => {
          if (out.includes('"completed"')) return true;
          await callEcho();
          return undefined;
        },
        60_000,
        "the first event printed",
      );
      relay.cut();
      // Calls made while the CLI is away: it must get them from the router's history when it comes back.
      await callEcho();
      await callEcho();
      await eventually(() => (err.includes("reconnecting") ? true : undefined), 30_000, "the reconnect");
      await callEcho();
      const history = await api<{ eventId: string; type: string }[]>(
        router.url,
        "GET",
        "/api/v2/tool-calls/history?toolName=echo&limit=1000",
      );
      const expected = history.map((e) => `${e.eventId}:${e.type}`);
      const printed = () =>
        out
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as { eventId: string; type: string })
          .map((e) => `${e.eventId}:${e.type}`);
      // The history began before the tail did: wait for its last event, the one the last call made.
      const last = expected.at(-1) as string;
      await eventually(() => (printed().includes(last) ? true : undefined), 30_000, "the last event");
      // Every call, each event once, in order: the first printed event is where the tail began in the history.
      const start = expected.indexOf(printed()[0] as string);
      expect(start).toBeGreaterThanOrEqual(0);
      expect(printed()).toEqual(expected.slice(start));
      expect(new Set(printed()).size).toBe(printed().length);
    } finally {
      await mcp.close();
      tail.kill("SIGINT");
      await relay.close();
    }
  });
});
