import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BridgeTransport, Code, type ServiceTarget } from "@trestle/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createMcpTransport,
  createStdioSandbox,
  listUpstreamCatalog,
  type McpStdioUpstream,
  mcpToolUri,
  SANDBOX_HOME,
  type StdioSandbox,
  type UnconfinedStartEvent,
} from "../src/index.js";
import { failureSubject } from "../src/mcp-failure.js";
import { openUpstreamConnection } from "../src/upstream-connection.js";
import {
  alive,
  eventually,
  fixtureUpstream,
  mcpTarget,
  pidsWithArgument,
  rejection,
  texts,
  toolCall,
} from "./support/upstreams.js";

/** The hostile fixture: no dependencies, so the sandbox needs to show it nothing but node and this file. */
const PROC_SCAN = new URL("fixtures/proc-scan-server.mjs", import.meta.url).pathname;
const CANARY = `canary-router-secret-${randomUUID()}`;

function scanner(extra: Partial<McpStdioUpstream> = {}): McpStdioUpstream {
  return { kind: "stdio", command: process.execPath, args: [PROC_SCAN], ...extra };
}

function scanCall(name: string, args: Record<string, unknown> = {}) {
  return { tool: { name, type: "scanner", uri: mcpToolUri("scanner", name) }, arguments: args as never };
}

async function callJson<T>(transport: BridgeTransport, target: ServiceTarget, name: string, args = {}) {
  const result = await transport.callTool(scanCall(name, args), target);
  return JSON.parse(texts(result)[0] as string) as T;
}

/** The host pids of the processes `parent` started. */
function childrenOf(parent: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface Scan {
  self: number;
  pids: number[];
  readable: number;
  text: string;
}

describe("stdio servers run in a sandbox of their own", () => {
  let work: string;
  let homes: string;
  /** A process of the router's user holding a secret in its environment, as the router holds its tokens. */
  let holder: ChildProcess;
  let transport: BridgeTransport | undefined;
  const target = mcpTarget("fwd-scan", "forward.scanner");

  beforeAll(async () => {
    work = realpathSync(mkdtempSync(join(tmpdir(), "trestle-sandbox-test-")));
    homes = join(work, "homes");
    holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 60000)"], {
      env: { ROUTER_SECRET: CANARY },
      stdio: "ignore",
    });
    await new Promise((resolve) => holder.once("spawn", resolve));
  });

  afterEach(async () => {
    await transport?.close();
    transport = undefined;
  });

  afterAll(() => {
    holder.kill("SIGKILL");
    rmSync(work, { recursive: true, force: true });
  });

  function open(upstream: McpStdioUpstream, sandbox?: StdioSandbox): BridgeTransport {
    transport = createMcpTransport({
      upstreamFor: () => upstream,
      sandbox: sandbox ?? createStdioSandbox({ homesDirectory: homes }),
    });
    return transport;
  }

  it("reads no other process's environment or command line: not the router's, not its user's", async () => {
    const scan = await callJson<Scan>(open(scanner()), target, "scan_proc");
    expect(scan.text).not.toContain(CANARY);
    expect(scan.pids).not.toContain(holder.pid);
    expect(scan.pids).not.toContain(process.pid);
    // It did read what it may: its own entries, in a PID namespace that holds the sandbox alone.
    expect(scan.readable).toBeGreaterThan(0);
    expect(scan.pids).toContain(scan.self);
    expect(scan.pids.length).toBeLessThan(5);
  });

  it("unconfined on request (sandbox: false), the same server reads the secret, and each start is reported", async () => {
    const starts: UnconfinedStartEvent[] = [];
    const sandbox = createStdioSandbox({ homesDirectory: homes, onUnconfinedStart: (e) => starts.push(e) });
    const scan = await callJson<Scan>(open(scanner({ sandbox: false }), sandbox), target, "scan_proc");
    expect(scan.text).toContain(CANARY);
    expect(starts.length).toBeGreaterThanOrEqual(1);
    expect(starts[0]).toEqual({ key: "forward.scanner", upstream: "'node'" });
  });

  it("gets an environment of its own: a home in the sandbox, a system PATH, its own variables, nothing of the router's", async () => {
    const seen = await callJson<{ env: Record<string, string>; cwd: string; home: string }>(
      open(scanner({ env: { API_KEY: "server-key" } })),
      target,
      "environment",
    );
    const allowed = ["HOME", "PATH", "LANG", "SHELL", "TERM", "USER", "LOGNAME", "API_KEY", "PWD"];
    expect(Object.keys(seen.env).filter((name) => !allowed.includes(name))).toEqual([]);
    expect(seen.env.API_KEY).toBe("server-key");
    expect(seen.home).toBe(SANDBOX_HOME);
    expect(seen.cwd).toBe(SANDBOX_HOME);
  });

  it("never puts a server's environment on a command line, where every user of the machine can read it", () => {
    const launch = createStdioSandbox({ homesDirectory: homes }).launch(
      scanner({ env: { API_KEY: CANARY } }),
      "forward.scanner",
    );
    expect(launch.sandboxed).toBe(true);
    expect(launch.args.join(" ")).not.toContain(CANARY);
    expect(launch.env.API_KEY).toBe(CANARY);
  });

  it("sees its cwd read-only, not the router's files inside it, and writes only its home and writable paths", async () => {
    const project = join(work, "project");
    const routerData = join(project, ".trestle", "data");
    const output = join(project, "out");
    mkdirSync(routerData, { recursive: true });
    mkdirSync(output, { recursive: true });
    writeFileSync(join(routerData, "tokens.json"), CANARY);
    const sandbox = createStdioSandbox({ homesDirectory: homes, hiddenPaths: [routerData] });
    const upstream = scanner({ cwd: project, writablePaths: [output] });
    const t = open(upstream, sandbox);
    const probed = await callJson<Record<string, string>>(t, target, "probe_paths", {
      paths: [project, routerData, join(routerData, "tokens.json"), homes, "/root", work],
    });
    expect(probed[project]).toMatch(/^directory:/);
    expect(probed[routerData]).toBe("directory:0");
    expect(probed[join(routerData, "tokens.json")]).toBe("missing");
    expect(probed[homes]).toBe("missing");
    expect(probed["/root"]).toBe("missing");
    expect(
      texts(await t.callTool(scanCall("write_file", { path: join(project, "x"), text: "x" }), target)),
    ).toEqual(["EROFS"]);
    expect(
      texts(await t.callTool(scanCall("write_file", { path: join(output, "x"), text: "x" }), target)),
    ).toEqual(["written"]);
    const kept = join(SANDBOX_HOME, "kept.txt");
    expect(texts(await t.callTool(scanCall("write_file", { path: kept, text: "kept" }), target))).toEqual([
      "written",
    ]);
    await t.close();
    // A new process of the same forward finds its home as it left it (an npx cache is kept the same way).
    const again = open(upstream, createStdioSandbox({ homesDirectory: homes, hiddenPaths: [routerData] }));
    expect(await callJson(again, target, "probe_paths", { paths: [kept] })).toEqual({ [kept]: "file:4" });
  });

  it("fails to start with one sentence naming the fix when bubblewrap is missing, and never starts unconfined", async () => {
    const marker = `--marker=${randomUUID()}`;
    const t = open(
      scanner({ args: [PROC_SCAN, marker] }),
      createStdioSandbox({ homesDirectory: homes, bwrapPath: "/nonexistent/bwrap" }),
    );
    const error = await rejection(t.callTool(scanCall("scan_proc"), target));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toBe(
      `The MCP server 'node' cannot start in its sandbox: /nonexistent/bwrap does not exist: install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap); or set "sandbox": false on this forward to run it unconfined`,
    );
    expect(pidsWithArgument(marker)).toEqual([]);
    const listed = await rejection(
      listUpstreamCatalog(scanner(), { sandbox: createStdioSandbox({ bwrapPath: "/nonexistent/bwrap" }) }),
    );
    expect(listed.code).toBe(Code.FailedPrecondition);
  });

  it("ends a pooled server and everything in its sandbox on close(), and each per-call process after its call", async () => {
    const marker = `--marker=${randomUUID()}`;
    const pooled = open(fixtureUpstream([marker]));
    await pooled.callTool(toolCall("spawn_child"), target);
    const [server] = pidsWithArgument(marker);
    const started = childrenOf(server as number);
    expect(started.length).toBe(1);
    await pooled.close();
    expect(pidsWithArgument(marker)).toEqual([]);
    expect(started.filter(alive)).toEqual([]);

    const perCall = open(fixtureUpstream([marker], { mode: "per-call" }));
    const replies = await Promise.all([1, 2, 3].map(() => perCall.callTool(toolCall("echo"), target)));
    expect(replies.every((r) => !r.isError)).toBe(true);
    await eventually(() => pidsWithArgument(marker).length === 0);
  });
});

describe("a first start that outlasts the era probe (a sandboxed npx -y downloading into an empty home)", () => {
  it("gets initialize on the process it started, never killed half way and started again", async () => {
    const marker = `--marker=${randomUUID()}`;
    const sandbox = createStdioSandbox();
    const seen = new Set<number>();
    const sampler = setInterval(() => {
      for (const pid of pidsWithArgument(marker)) seen.add(pid);
    }, 20);
    try {
      const upstream = fixtureUpstream([marker, "--start-delay=1500"]);
      const connection = await openUpstreamConnection(upstream, {
        subject: failureSubject(upstream),
        clientInfo: { name: "test", version: "1" },
        handshakeTimeoutMs: 20_000,
        probeTimeoutMs: 300,
        launch: (stdio) => sandbox.launch(stdio, "forward.slow"),
      });
      try {
        expect(connection.era).toBe("legacy");
        expect(connection.serverInfo.name).toBe("trestle-fixture");
        const listed = await connection.request(
          "tools/list",
          {},
          { signal: AbortSignal.timeout(10_000), timeout: 10_000 },
        );
        expect((listed.tools as unknown[]).length).toBeGreaterThan(0);
      } finally {
        await connection.close();
      }
      expect(seen.size).toBe(1);
    } finally {
      clearInterval(sampler);
      sandbox.dispose();
    }
  });
});

describe("per-call servers are capped per forward", () => {
  let transport: BridgeTransport | undefined;

  afterEach(async () => {
    await transport?.close();
    transport = undefined;
  });

  it("runs at most maxProcesses at once, queues a bounded number of calls, and refuses the rest at once", async () => {
    const marker = `--marker=${randomUUID()}`;
    const target = mcpTarget("fwd-percall", "forward.percall");
    transport = createMcpTransport({
      upstreamFor: () => fixtureUpstream([marker], { mode: "per-call" }),
      perCallLimit: { maxProcesses: 2, maxQueued: 1 },
      handshakeTimeoutMs: 20_000,
    });
    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, pidsWithArgument(marker).length);
    }, 10);
    const settled = await Promise.allSettled(
      [1, 2, 3, 4].map(() =>
        (transport as BridgeTransport).callTool(toolCall("sleep", { ms: 500 }), target, {
          timeoutMs: 20_000,
        }),
      ),
    );
    clearInterval(sampler);
    const refused = settled.filter((s) => s.status === "rejected");
    expect(settled.filter((s) => s.status === "fulfilled").length).toBe(3);
    expect(refused.length).toBe(1);
    const reason = (refused[0] as PromiseRejectedResult).reason;
    expect(reason.code).toBe(Code.ResourceExhausted);
    expect(reason.rawMessage).toBe(
      "The MCP server 'node' already runs 2 per-call processes for this forward and 1 calls are waiting for one; try again later",
    );
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
  });
});
