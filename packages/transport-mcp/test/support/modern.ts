import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import type { McpHttpUpstream, McpStdioUpstream } from "../../src/index.js";
import { REPO_ROOT } from "./upstreams.js";

/**
 * The dual-era fixture upstream the end-to-end tests put behind the router (`packages/e2e/fixtures`): MCP
 * 2026-07-28 with `input_required` and the legacy revisions with server-to-client requests.
 */
export const MODERN_FIXTURE = new URL("../../../e2e/fixtures/modern-mcp-server.mjs", import.meta.url)
  .pathname;

/** A stdio upstream running the dual-era fixture with `args` (`--legacy-only`, `--modern-only`). */
export function modernStdioUpstream(
  args: string[] = [],
  extra: Partial<McpStdioUpstream> = {},
): McpStdioUpstream {
  return {
    kind: "stdio",
    command: process.execPath,
    args: [MODERN_FIXTURE, ...args],
    cwd: REPO_ROOT,
    ...extra,
  };
}

/** The fixture serving Streamable HTTP on a loopback port. */
export interface RunningFixture {
  url: string;
  upstream: McpHttpUpstream;
  stop(): Promise<void>;
}

/** Starts the dual-era fixture over Streamable HTTP with `args` and waits until it listens. */
export async function startHttpFixture(args: string[] = []): Promise<RunningFixture> {
  const child: ChildProcess = spawn(process.execPath, [MODERN_FIXTURE, "--http", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`the fixture exited (${code}) before it listened`)));
  });
  return {
    url,
    upstream: { kind: "http", url },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** One request that went through a {@link RecordingProxy}. */
export interface RecordedRequest {
  httpMethod: string;
  /** The JSON-RPC method of the body (`undefined` for a GET, DELETE or a response). */
  method: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | undefined;
}

/** A pass-through HTTP proxy that records what the transport sends. */
export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a proxy on a loopback port in front of `targetUrl`, recording every request. */
export async function recordingProxy(targetUrl: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const target = new URL(targetUrl);
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    let body: Record<string, unknown> | undefined;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    requests.push({
      httpMethod: req.method ?? "",
      method: typeof body?.method === "string" ? body.method : undefined,
      headers: req.headers,
      body,
    });
    const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name, value]) => !hopByHop.has(name) && typeof value === "string"),
    ) as Record<string, string>;
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const upstream = await fetch(new URL(req.url ?? "/", target), {
        method: req.method ?? "GET",
        headers,
        ...(raw ? { body: raw } : {}),
        signal: abort.signal,
      });
      res.writeHead(
        upstream.status,
        Object.fromEntries([...upstream.headers.entries()].filter(([name]) => !hopByHop.has(name))),
      );
      if (upstream.body) {
        for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
