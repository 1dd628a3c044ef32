import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  type RouterProcess,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  stopAll,
  trestleCli,
} from "./support/processes.js";
import { streamSseEvents } from "./support/sse.js";

const run = promisify(execFile);

/** Runs the trestle CLI; resolves with its exit code and output whatever the code. */
async function trestle(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [trestleCli, ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Reads an SSE stream until `until` returns true for the events so far (or the time runs out). */
async function readSse(
  url: string,
  until: (events: { event: string; data: string }[]) => boolean,
  timeoutMs = 15_000,
) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const events: { event: string; data: string }[] = [];
  try {
    const response = await fetch(url, {
      headers: { accept: "text/event-stream" },
      signal: controller.signal,
    });
    for await (const { event, data } of streamSseEvents(
      response.body as unknown as AsyncIterable<Uint8Array>,
    )) {
      if (data) events.push({ event, data });
      if (until(events)) break;
    }
  } catch (error) {
    if ((error as Error).name !== "AbortError") throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

describe("the management API's streams and the trestle CLI against a running router", () => {
  let router: RouterProcess;
  const scratch = mkdtempSync(join(tmpdir(), "trestle-cli-"));

  beforeAll(async () => {
    router = await startRouter();
    await Promise.all([
      startFixtureCapability(router.url, ["--service-name", "fixture", "--service-type", "tool-invoker"]),
      startFixtureCapability(router.url, ["--engine", "fixture"]),
    ]);
    await serviceHealthy(router.url, "fixture");
  }, 120_000);

  afterAll(async () => {
    await stopAll();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("streams tool-call events as SSE, redacted, with started then completed under one event id", async () => {
    await api(router.url, "POST", "/api/v1/tools", {
      name: "echo",
      uri: "fixture://echo",
      type: "fixture",
      inputSchema: { type: "object", properties: { city: { type: "string" }, password: { type: "string" } } },
    });
    const streamed = readSse(`${router.url}/api/v2/tool-calls/notifications`, (events) =>
      events.some((e) => e.event === "completed"),
    );
    await new Promise((r) => setTimeout(r, 300));
    const client = new Client({ name: "events", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
    await client.callTool({
      name: "echo",
      arguments: { city: "Riga", password: "hunter2-canary", wanaku_auth_Authorization: "Bearer tok-canary" },
    });
    await client.close();
    const events = await streamed;
    const started = events.find((e) => e.event === "started");
    const completed = events.find((e) => e.event === "completed");
    expect(started).toBeDefined();
    expect(JSON.parse(started?.data ?? "{}")).toMatchObject({
      toolName: "echo",
      arguments: { city: "Riga", password: "[REDACTED]" },
    });
    expect(JSON.parse(completed?.data ?? "{}").eventId).toBe(JSON.parse(started?.data ?? "{}").eventId);
    const all = JSON.stringify(events);
    expect(all).not.toContain("hunter2-canary");
    expect(all).not.toContain("tok-canary");
  });

  it("runs code over REST and streams every reply, early ones included, over SSE", async () => {
    await serviceHealthy(router.url, "fixture");
    const task = await api<{ taskId: string; streamUrl: string }>(
      router.url,
      "POST",
      "/api/v2/code-execution-engine/fixture/sim",
      {
        code: "alpha\nbeta",
        arguments: ["50"],
      },
    );
    // Read late on purpose: output produced before anyone reads must still arrive.
    await new Promise((r) => setTimeout(r, 500));
    const events = await readSse(`${router.url}${task.streamUrl}`, (e) => e.some((x) => x.event === "end"));
    const outputs = events
      .filter((e) => e.event === "reply")
      .map((e) => JSON.parse(e.data) as { outputType: string; content: string[] });
    expect(
      outputs.filter((o) => o.outputType === "stdout").map((o) => o.content.join("").split(" @")[0]),
    ).toEqual(["alpha", "beta"]);
    expect(outputs.at(-1)).toMatchObject({ outputType: "completion", status: "completed", exitCode: 0 });
    const again = await fetch(`${router.url}${task.streamUrl}`);
    expect(again.status).toBe(404);
  });

  it("manages the catalog from the CLI, with tables, --json and exit codes scripts can trust", {
    timeout: 180_000,
  }, async () => {
    const url = ["--url", router.url];
    const file = join(scratch, "tool.json");
    writeFileSync(
      file,
      JSON.stringify({ name: "from_cli", uri: "fixture://echo", type: "fixture", labels: { origin: "cli" } }),
    );
    expect((await trestle(["tools", "add", file, ...url])).code).toBe(0);
    const list = await trestle(["tools", "list", "--json", "--label-filter", "origin=cli", ...url]);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((t) => t.name)).toEqual(["from_cli"]);
    const table = await trestle(["tools", "list", ...url]);
    expect(table.stdout).toMatch(/^NAME\s+TYPE\s+URI/m);
    const duplicate = await trestle(["tools", "add", file, ...url]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain("409");
    expect((await trestle(["namespaces", "create", "cli-ns", ...url])).stdout).toContain("/cli-ns/mcp");
    const services = await trestle(["services", "list", "--json", ...url]);
    expect(
      (JSON.parse(services.stdout) as { target: { serviceName: string } }[]).some(
        (s) => s.target.serviceName === "fixture",
      ),
    ).toBe(true);
    expect((await trestle(["tools", "remove", "from_cli", ...url])).code).toBe(0);
    expect((await trestle(["tools", "show", "from_cli", ...url])).code).toBe(1);
    expect((await trestle(["tools", "frobnicate", ...url])).code).toBe(2);
    expect((await trestle(["tools", "list", "--url", "http://127.0.0.1:1"])).code).toBe(3);
    const config = JSON.parse((await trestle(["config", "claude", ...url])).stdout);
    expect(config.mcpServers.trestle.url).toBe(`${router.url}/mcp`);
  });

  it("runs a file on an engine from the CLI, streaming its output and exiting with its code", async () => {
    const file = join(scratch, "program.sim");
    writeFileSync(file, "first\nsecond\n");
    const result = await trestle(["exec", "fixture", "sim", file, "10", "--url", router.url]);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").map((l) => l.split(" @")[0])).toEqual(["first", "second", ""]);
  });

  it("streams registry events (registered, deregistered) as SSE", async () => {
    const streamed = readSse(`${router.url}/api/v1/management/events`, (events) =>
      events.some((e) => e.event === "deregistered"),
    );
    await new Promise((r) => setTimeout(r, 300));
    const registered = await api<{ id: string }>(router.url, "POST", "/api/v1/management/discovery", {
      serviceName: "short-lived",
      host: "127.0.0.1",
      port: 1,
      serviceType: "tool-invoker",
    });
    await api(router.url, "DELETE", "/api/v1/management/discovery", {
      id: registered.id,
      serviceName: "short-lived",
    });
    const events = await streamed;
    const mine = events.filter(
      (e) => (JSON.parse(e.data) as { service: { id: string } }).service.id === registered.id,
    );
    expect(mine.map((e) => e.event)).toContain("registered");
    expect(mine.map((e) => e.event).at(-1)).toBe("deregistered");
  });

  it("tails live tool calls from the CLI", { timeout: 120_000 }, async () => {
    const { spawn } = await import("node:child_process");
    const tail = spawn(process.execPath, [trestleCli, "events", "tail", "--json", "--url", router.url], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    tail.stdout.on("data", (d) => {
      out += d;
    });
    try {
      const client = new Client({ name: "tail", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
      const deadline = Date.now() + 60_000;
      // The CLI connects in its own time: call until its first line shows up.
      while (!out.includes('"completed"') && Date.now() < deadline) {
        await client.callTool({ name: "echo", arguments: { city: "Tallinn" } });
        await new Promise((r) => setTimeout(r, 500));
      }
      await client.close();
      const lines = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; toolName: string });
      expect(lines.some((l) => l.type === "completed" && l.toolName === "echo")).toBe(true);
    } finally {
      tail.kill("SIGINT");
    }
  });

  it("serves its OpenAPI document as it is, for OpenAPI tools to load by its URL", async () => {
    const response = await fetch(`${router.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, object> };
    expect(Object.keys(doc)).not.toContain("data");
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/v1/tools/{name}");
  });
});
