import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import type { ResourceRead, ServiceTarget, ToolCall, ToolResult } from "@trestle/core";
import { TrestleError } from "@trestle/core";
import { expect } from "vitest";
import { type McpHttpUpstream, type McpStdioUpstream, mcpToolUri } from "../../src/index.js";

const require = createRequire(import.meta.url);

/** The in-repo fixture MCP server (a real SDK server). */
export const FIXTURE = new URL("../fixtures/fixture-server.mjs", import.meta.url).pathname;

/**
 * The repository's root: the working directory of the fixture servers, so that their sandbox shows the workspace's
 * `node_modules` they import the MCP SDK from (a sandbox shows a server its `cwd`, read-only).
 */
export const REPO_ROOT = new URL("../../../../", import.meta.url).pathname.replace(/\/$/, "");

/** The entry point of an npm MCP server package installed as a devDependency. */
export function npmServerEntry(pkg: "server-everything" | "server-filesystem"): string {
  return join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), "dist", "index.js");
}

/** A stdio upstream running the fixture with `args`. */
export function fixtureUpstream(
  args: string[] = [],
  extra: Partial<McpStdioUpstream> = {},
): McpStdioUpstream {
  return { kind: "stdio", command: process.execPath, args: [FIXTURE, ...args], cwd: REPO_ROOT, ...extra };
}

/** A target for an MCP forward. */
export function mcpTarget(id = "forward-1", serviceName = "fixture"): ServiceTarget {
  return { id, serviceName, host: "mcp", port: 0, serviceType: "tool-invoker", protocol: "mcp" };
}

/** A call of the upstream tool `toolName` (imported from forward `fixture`) with typed `args`. */
export function toolCall(toolName: string, args: ToolCall["arguments"] = {}): ToolCall {
  return {
    tool: { name: `fx_${toolName}`, type: "fixture", uri: mcpToolUri("fixture", toolName) },
    arguments: args,
  };
}

/** A read of the resource at `uri`. */
export function resourceRead(uri: string): ResourceRead {
  return { resource: { location: uri, type: "fixture", name: "resource" }, uri };
}

/** The texts of a result's text blocks, in order. */
export function texts(result: ToolResult): string[] {
  return result.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
}

/** Awaits `promise` expecting a `TrestleError`. */
export async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  try {
    await promise;
  } catch (error) {
    expect(error, `expected a TrestleError, got ${String(error)}`).toBeInstanceOf(TrestleError);
    return error as TrestleError;
  }
  throw new Error("expected the call to reject, but it resolved");
}

/** Waits for `check` to hold, polling, for at most `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True when a process with this pid exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * The pids of processes whose command line holds `marker` as one argument: the servers themselves, not the
 * bubblewrap processes that start them in their sandbox (whose command lines hold the server's).
 */
export function pidsWithArgument(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv.includes(marker) && !(argv[0] ?? "").endsWith("bwrap")) out.push(Number(entry));
    } catch {
      // Gone while reading.
    }
  }
  return out;
}

/** A server process started for a test, ended by `stop`. */
export interface RunningServer {
  upstream: McpHttpUpstream;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new Error(`server did not print ${pattern} in time: ${seen}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stderr?.off("data", onData);
        resolve(match);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before printing ${pattern}: ${seen}`));
    });
  });
}

/** Starts the fixture over Streamable HTTP on a port the system picks. */
export async function startFixtureHttp(): Promise<RunningServer> {
  const child = spawn(process.execPath, [FIXTURE, "--mode=http"], { stdio: ["pipe", "pipe", "pipe"] });
  const match = await waitForLine(child, /listening (\d+)/);
  child.stdout?.resume();
  child.stderr?.resume();
  const port = Number(match[1]);
  return {
    upstream: { kind: "http", url: `http://127.0.0.1:${port}/mcp` },
    port,
    child,
    stop: stopper(child),
  };
}

/** A port that was free a moment ago (the everything server takes its port from `PORT` and cannot report it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Starts `@modelcontextprotocol/server-everything streamableHttp` on `port`. */
export async function startEverythingHttp(port: number): Promise<RunningServer> {
  const child = spawn(process.execPath, [npmServerEntry("server-everything"), "streamableHttp"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PORT: String(port) },
  });
  await waitForLine(child, /listening on port/);
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    upstream: { kind: "http", url: `http://127.0.0.1:${port}/mcp` },
    port,
    child,
    stop: stopper(child),
  };
}
