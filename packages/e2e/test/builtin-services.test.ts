import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RouterProcess,
  serviceHealthy,
  startRouter,
  stopAll,
} from "./support/processes.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** Processes whose command line holds `marker` (zombies excluded). */
function processesWith(marker: string): string[] {
  const out = execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(marker) && !l.trim().startsWith("Z") && !l.includes("ps -eo"));
}

describe("the built-in services, started by the router and used through MCP", () => {
  let router: RouterProcess;
  let client: Client;
  let upstream: Server;
  let upstreamUrl: string;
  const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const root = mkdtempSync(join(tmpdir(), "trestle-files-"));
  const outside = mkdtempSync(join(tmpdir(), "trestle-outside-"));

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
        res.writeHead(req.url?.startsWith("/missing") ? 404 : 200, { "content-type": "application/json" });
        res.end(
          req.url?.startsWith("/missing")
            ? '{"error":"no such item"}'
            : JSON.stringify({ ok: true, path: req.url }),
        );
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

    writeFileSync(join(root, "notes.txt"), "hello from a file\n");
    writeFileSync(join(root, "pixel.png"), PNG);
    writeFileSync(join(outside, "secret.txt"), "outside the root\n");
    mkdirSync(join(root, "links"));
    symlinkSync(outside, join(root, "links", "escape"));

    router = await startRouter(["--builtins", "--root", root, "--builtin-arg", "http=--allow-private"]);
    await Promise.all([
      serviceHealthy(router.url, "http"),
      serviceHealthy(router.url, "file"),
      serviceHealthy(router.url, "trestle"),
    ]);
    client = new Client({ name: "e2e-builtins", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await stopAll();
    upstream?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("each built-in runs from its package's bundle, under the built-ins' node flags", () => {
    const ours = processesWith(`--router ${router.url}`);
    for (const name of ["http", "file", "exec"]) {
      const line = ours.find((l) => l.includes(`/service-${name}/dist/bundle/main.mjs`));
      expect(line, `service-${name} from its bundle in:\n${ours.join("\n")}`).toBeDefined();
      expect(line).toContain("--no-sparkplug");
      expect(line).toContain("--max-semi-space-size=1");
    }
  });

  it("HTTP: fills the URL template, sends provisioned headers and query, secrets and the body", async () => {
    await api(router.url, "POST", "/api/v1/tools/payloads", {
      payload: {
        name: "create_item",
        description: "Creates an item",
        uri: `${upstreamUrl}/items/{id}`,
        type: "http",
        inputSchema: {
          type: "object",
          properties: { id: { type: "string" }, wanaku_body: { type: "string" } },
          required: ["id"],
        },
      },
      configurationData: "method=POST\nheader.X-Team=blue\nquery.lang=en",
      secretsData: "header.Authorization=Bearer canary-secret-7f3a",
    });
    const result = await client.callTool({
      name: "create_item",
      arguments: { id: "a b", wanaku_body: '{"n":1}' },
    });
    expect(result.isError).toBeFalsy();
    const request = seen.at(-1);
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/items/a%20b?lang=en");
    expect(request?.headers["x-team"]).toBe("blue");
    expect(request?.headers.authorization).toBe("Bearer canary-secret-7f3a");
    expect(request?.body).toBe('{"n":1}');
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? "{}")).toEqual({
      ok: true,
      path: "/items/a%20b?lang=en",
    });
    const events = await api<unknown[]>(router.url, "GET", "/api/v2/tool-calls/history?limit=50");
    expect(JSON.stringify(events)).not.toContain("canary-secret-7f3a");
  });

  it("HTTP: a non-2xx answer is a tool error with the status", async () => {
    await api(router.url, "POST", "/api/v1/tools", {
      name: "get_missing",
      uri: `${upstreamUrl}/missing/{id}`,
      type: "http",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    });
    const result = await client.callTool({ name: "get_missing", arguments: { id: "1" } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("404");
  });

  it("File: reads text and binary files under the root, refuses traversal and symlink escapes", async () => {
    const add = (name: string, location: string, mimeType: string) =>
      api(router.url, "POST", "/api/v1/resources", { name, location, type: "file", mimeType });
    await add("notes", `file://${join(root, "notes.txt")}`, "text/plain");
    await add("pixel", `file://${join(root, "pixel.png")}`, "image/png");
    await add("escape", `file://${join(root, "links", "escape", "secret.txt")}`, "text/plain");
    await add("traversal", `file://${root}/../${outside.split("/").pop()}/secret.txt`, "text/plain");
    expect(
      (await client.readResource({ uri: `file://${join(root, "notes.txt")}` })).contents[0],
    ).toMatchObject({
      text: "hello from a file\n",
    });
    const pixel = (await client.readResource({ uri: `file://${join(root, "pixel.png")}` })).contents[0] as {
      blob?: string;
    };
    expect(Buffer.from(pixel.blob ?? "", "base64").equals(PNG)).toBe(true);
    for (const uri of [
      `file://${join(root, "links", "escape", "secret.txt")}`,
      `file://${root}/../${outside.split("/").pop()}/secret.txt`,
    ]) {
      const read = client.readResource({ uri });
      await expect(read).rejects.toThrow();
      await read.catch((error: Error) => expect(error.message).not.toContain("outside the root"));
    }
  });

  it("Exec: a program's first line reaches the client well before it ends", async () => {
    const arrivals: number[] = [];
    const started = Date.now();
    const code =
      "let i = 0; const t = setInterval(() => { console.log('tick ' + i); if (++i === 5) clearInterval(t); }, 500);";
    const result = await client.callTool(
      { name: "execute_code", arguments: { language: "javascript", code } },
      CallToolResultSchema,
      { onprogress: () => arrivals.push(Date.now()), timeout: 30_000 },
    );
    const ended = Date.now();
    expect(result.structuredContent).toMatchObject({ exitCode: 0, status: "completed" });
    expect((result.structuredContent as { stdout: string }).stdout).toContain("tick 4");
    expect(ended - started).toBeGreaterThan(2_000);
    expect(ended - (arrivals[0] ?? ended)).toBeGreaterThan(1_500);
  });

  it("Exec: an infinite loop is killed at its timeout and leaves no process behind", async () => {
    const marker = `loop-${randomUUID()}`;
    const result = await client.callTool(
      {
        name: "execute_code",
        arguments: { language: "javascript", code: "for (;;) {}", arguments: [marker], timeoutMs: 1500 },
      },
      CallToolResultSchema,
      { timeout: 30_000 },
    );
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { status: string }).status).toBe("timeout");
    await eventually(() => (processesWith(marker).length === 0 ? true : undefined), 5_000, "no process left");
  });

  it("Exec: JavaScript cannot read a file outside its work directory", async () => {
    const result = await client.callTool(
      {
        name: "execute_code",
        arguments: {
          language: "javascript",
          code: `require('fs').readFileSync(${JSON.stringify(join(outside, "secret.txt"))}, 'utf8')`,
        },
      },
      CallToolResultSchema,
    );
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain("outside the root");
  });

  it("Exec: cancelling from the MCP client stops the process", async () => {
    const marker = `cancel-${randomUUID()}`;
    const controller = new AbortController();
    const call = client.callTool(
      {
        name: "execute_code",
        arguments: {
          language: "javascript",
          code: "setInterval(() => console.log('still here'), 100);",
          arguments: [marker],
          timeoutMs: 60_000,
        },
      },
      CallToolResultSchema,
      { signal: controller.signal, timeout: 60_000 },
    );
    await eventually(() => (processesWith(marker).length > 0 ? true : undefined), 10_000, "the run to start");
    controller.abort("stop");
    await expect(call).rejects.toThrow();
    await eventually(
      () => (processesWith(marker).length === 0 ? true : undefined),
      10_000,
      "the process to stop",
    );
  });

  // Last: it stops the router.
  it("SIGTERM lets a call in flight on a built-in service finish before the services stop, then exits 0", async () => {
    const code = "setTimeout(() => console.log('finished after the signal'), 1500);";
    const call = client.callTool({ name: "execute_code", arguments: { language: "javascript", code } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exit = new Promise<number | null>((resolve) => router.child.once("exit", (c) => resolve(c)));
    router.child.kill("SIGTERM");
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain("finished after the signal");
    expect(await exit).toBe(0);
  });
});
