import { inspect } from "node:util";
import { Code, TrestleError } from "@trestle/core";
import { afterAll, describe, expect, it } from "vitest";
import { createMcpTransport, listUpstreamCatalog, type McpUpstream } from "../src/index.js";
import {
  eventually,
  FIXTURE,
  freePort,
  mcpTarget,
  REPO_ROOT,
  rejection,
  toolCall,
} from "./support/upstreams.js";

const ARG_CANARY = "canary-arg-7f3a91c2";
const ENV_CANARY = "canary-env-5d2e8b40";
const HEADER_CANARY = "canary-header-1c9e77aa";
const QUERY_CANARY = "canary-query-b81f0d63";
const CANARIES = [ARG_CANARY, ENV_CANARY, HEADER_CANARY, QUERY_CANARY];

/** Everything an error exposes: message, stack, causes, metadata, its own properties, as inspect prints them. */
function everythingIn(error: unknown): string {
  const parts: string[] = [inspect(error, { depth: 10, showHidden: true })];
  for (let e: unknown = error, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof Error) parts.push(e.message, e.stack ?? "");
    if (e instanceof TrestleError) parts.push(e.rawMessage, JSON.stringify(e.metadata));
    try {
      parts.push(JSON.stringify(e));
    } catch {
      parts.push(String(e));
    }
  }
  return parts.join("\n");
}

function expectNoCanary(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

function stdio(args: string[], extra: Partial<Extract<McpUpstream, { kind: "stdio" }>> = {}): McpUpstream {
  return {
    kind: "stdio",
    command: process.execPath,
    args: [FIXTURE, ...args, `--token=${ARG_CANARY}`, ARG_CANARY],
    env: { FIXTURE_SECRET: ENV_CANARY },
    cwd: REPO_ROOT,
    ...extra,
  };
}

describe("failures are one sentence that never quotes argv past the program name (canary)", () => {
  const logged: string[] = [];
  const upstreams: Record<string, McpUpstream> = {
    notFound: { kind: "stdio", command: `/nonexistent/dir/mcp-${"x"}`, args: [`--key=${ARG_CANARY}`] },
    exitsAtStart: stdio(["--mode=exit-at-start"]),
    silent: stdio(["--mode=silent"]),
    normal: stdio([]),
    perCall: stdio([], { mode: "per-call" }),
  };
  const transport = createMcpTransport({
    upstreamFor: (target) => upstreams[target.id],
    // Generous: on a loaded machine a Node server takes over a second to start.
    handshakeTimeoutMs: 10_000,
    onStderr: (event) => logged.push(JSON.stringify(event)),
    onLog: (event) => logged.push(JSON.stringify(event)),
  });

  afterAll(async () => {
    await transport.close();
    expectNoCanary(logged.join("\n"));
  });

  it("a program that does not exist", async () => {
    const error = await rejection(transport.callTool(toolCall("echo"), mcpTarget("notFound")));
    expect(error.code).toBe(Code.Unavailable);
    expect(error.rawMessage).toBe("The MCP server 'mcp-x' could not be started: the program was not found");
    expectNoCanary(everythingIn(error));
  });

  it("a server that exits at start, after printing its argv and environment to stderr", async () => {
    const error = await rejection(transport.callTool(toolCall("echo"), mcpTarget("exitsAtStart")));
    expect(error.code).toBe(Code.Unavailable);
    // What the program said last comes with the failure, scrubbed of its arguments' and environment's values.
    expect(error.rawMessage).toMatch(
      /^The MCP server 'node' exited before completing the MCP handshake; its last lines on stderr: ".*fatal: cannot start/,
    );
    expectNoCanary(everythingIn(error));
    await eventually(() => logged.some((line) => line.includes("fatal: cannot start")));
  });

  it("a handshake that never comes", async () => {
    const impatient = createMcpTransport({
      upstreamFor: (target) => upstreams[target.id],
      handshakeTimeoutMs: 500,
      onStderr: (event) => logged.push(JSON.stringify(event)),
    });
    try {
      const started = Date.now();
      const error = await rejection(impatient.callTool(toolCall("echo"), mcpTarget("silent")));
      expect(error.code).toBe(Code.Unavailable);
      expect(error.rawMessage).toBe(
        "The MCP server 'node' did not complete the MCP handshake within 500 ms (startTimeoutMs on a first start, handshakeTimeoutMs after it: raise it for a server that starts slowly)",
      );
      expect(Date.now() - started).toBeLessThan(8_000);
      expectNoCanary(everythingIn(error));
    } finally {
      await impatient.close();
    }
  });

  it("a JSON-RPC error, a log message and stderr that echo argv and environment", async () => {
    const error = await rejection(transport.callTool(toolCall("leak"), mcpTarget("normal")));
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toMatch(
      /^The MCP server 'node' answered tools\/call with error -32603: cannot serve: /,
    );
    expect(error.rawMessage).toContain("[REDACTED]");
    expectNoCanary(everythingIn(error));
    await eventually(() => logged.some((line) => line.includes("leaking")));
    await eventually(() => logged.some((line) => line.includes('"level":"error"')));
  });

  it("an isError result that echoes argv and environment, pooled and per call", async () => {
    for (const id of ["normal", "perCall"]) {
      const result = await transport.callTool(toolCall("leak_is_error"), mcpTarget(id));
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: "text", text: expect.stringMatching(/^refused: /) }]);
      expect(JSON.stringify(result)).toContain("[REDACTED]");
      expectNoCanary(JSON.stringify(result));
    }
  });

  it("a server that dies during the call", async () => {
    const error = await rejection(transport.callTool(toolCall("crash"), mcpTarget("normal")));
    expect(error.rawMessage).toBe("The MCP server 'node' exited during the tools/call request");
    expectNoCanary(everythingIn(error));
  });

  it("health probes and catalog listings say the same without the secrets", async () => {
    const health = await transport.probeHealth(mcpTarget("exitsAtStart"));
    expect(health.state).toBe("down");
    expectNoCanary(JSON.stringify(health));
    const error = await rejection(
      listUpstreamCatalog(upstreams.silent as McpUpstream, { handshakeTimeoutMs: 500 }),
    );
    expect(error.rawMessage).toBe(
      "The MCP server 'node' did not complete the MCP handshake within 500 ms (startTimeoutMs on a first start, handshakeTimeoutMs after it: raise it for a server that starts slowly)",
    );
    expectNoCanary(everythingIn(error));
  });

  it("an HTTP server that cannot be reached, with credentials in headers and query", async () => {
    const port = await freePort();
    const http: McpUpstream = {
      kind: "http",
      url: `http://127.0.0.1:${port}/mcp/secret-path?key=${QUERY_CANARY}`,
      headers: { Authorization: `Bearer ${HEADER_CANARY}` },
    };
    const withPassword: McpUpstream = {
      kind: "http",
      url: `http://user:${QUERY_CANARY}@127.0.0.1:${port}/mcp`,
    };
    const t = createMcpTransport({
      upstreamFor: (target) => (target.id === "password" ? withPassword : http),
    });
    try {
      const error = await rejection(t.callTool(toolCall("echo"), mcpTarget()));
      expect(error.rawMessage).toBe(
        `The MCP server at http://127.0.0.1:${port} could not be reached (connection refused)`,
      );
      expectNoCanary(everythingIn(error));
      const refused = await rejection(t.callTool(toolCall("echo"), mcpTarget("password")));
      expect(refused.code).toBe(Code.InvalidArgument);
      expect(refused.rawMessage).toContain("holds a user name or password");
      expectNoCanary(everythingIn(refused));
    } finally {
      await t.close();
    }
  });
});
