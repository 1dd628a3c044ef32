import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterProcess, startRouter, stopAll } from "../support/processes.js";
import { type MemoryPeaks, sampleMemory } from "./support/memory-sampler.js";

/**
 * Red team, code execution: an MCP client holding only an `mcp` token sends programs to the built-in engine
 * that try to read the router's secrets out of other processes' /proc entries and to reach the router's
 * management API on loopback. Before the engine ran programs in a bubblewrap sandbox, Python printed the
 * router's admin token and both languages connected to the router (the program was a child process of the
 * same user, in the same PID and network namespaces). The JavaScript /proc walk was already stopped by
 * Node's permission model; it stays as a check that the sandbox holds behind it.
 *
 * Then programs that try to take the host's memory (security issue 47, finding 3): Python writing 1 GiB to
 * /dev/shm and JavaScript allocating 1 GiB of Buffers, twice the engine's default limit of 512 MiB. Before the
 * engine bounded a run's memory as a whole, both got their 1 GiB: /dev was a tmpfs as large as half the
 * host's memory and Node's only limit was its heap, so the host's shared memory, and the sandbox's resident
 * memory, grew by 1 GiB.
 */

const ADMIN_CANARY = "canary-exec-admin-5f1c9a27d3e84b06";
const MCP_CANARY = "canary-exec-mcp-8e2d4b7a1c9f3065";
const REGISTER_CANARY = "canary-exec-register-3b7e9d1f5a2c4086";
const ROUTER_TOKEN_CANARY = "canary-exec-router-token-6a0f2e8c4d1b7395";
const CANARIES = [ADMIN_CANARY, MCP_CANARY, REGISTER_CANARY, ROUTER_TOKEN_CANARY];

/** Prints every /proc/<pid>/environ and cmdline entry it can read that looks like a credential. */
const PYTHON_PROC_WALK = `
import os
readable = 0
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    for name in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                data = f.read().decode("utf8", "replace")
        except OSError:
            continue
        readable += 1
        for entry in data.split("\\0"):
            if "TRESTLE" in entry.upper() or "TOKEN" in entry.upper() or "canary" in entry:
                print(pid, name, entry)
print("readable", readable)
`;

const JAVASCRIPT_PROC_WALK = `
const fs = require("node:fs");
let readable = 0;
let pids = [];
try { pids = fs.readdirSync("/proc"); } catch (error) { console.log("listing /proc refused", error.code); }
for (const pid of pids) {
  if (!/^[0-9]+$/.test(pid) || Number(pid) === process.pid) continue;
  for (const name of ["environ", "cmdline"]) {
    let data;
    try { data = fs.readFileSync("/proc/" + pid + "/" + name, "utf8"); } catch { continue; }
    readable++;
    for (const entry of data.split("\\0")) {
      if (/TRESTLE|TOKEN/i.test(entry) || entry.includes("canary")) console.log(pid, name, entry);
    }
  }
}
console.log("readable", readable);
`;

/** The engine's default memory limit per run, in MiB, which the router's built-in engine runs with. */
const LIMIT_MB = 512;
const TARGET_MB = 2 * LIMIT_MB;

const PYTHON_SHM_FILL = `
chunk = b"x" * (1 << 20)
written = 0
print("started", flush=True)
try:
    with open("/dev/shm/hoard", "wb") as f:
        while written < ${TARGET_MB}:
            f.write(chunk)
            f.flush()
            written += 1
            if written % 16 == 0:
                print("at", written, flush=True)
    print("REACHED", written, flush=True)
except (OSError, MemoryError) as e:
    print("stopped", written, type(e).__name__, flush=True)
`;

const JAVASCRIPT_BUFFERS = `
const hoard = [];
let allocated = 0;
console.log("started");
try {
  while (allocated < ${TARGET_MB}) {
    hoard.push(Buffer.alloc(16 << 20, 1));
    allocated += 16;
    console.log("at", allocated);
  }
  console.log("REACHED", allocated);
} catch (error) {
  console.log("stopped", allocated, error.message);
}
`;

function pythonLoopback(port: number): string {
  return `
import urllib.request
try:
    with urllib.request.urlopen("http://127.0.0.1:${port}/api/v1/tools", timeout=5) as r:
        print("CONNECTED", r.status, r.read()[:200])
except urllib.error.HTTPError as e:
    print("CONNECTED", e.code)
except Exception as e:
    print("REFUSED", type(e).__name__, e)
`;
}

function javascriptLoopback(port: number): string {
  return `
const http = require("node:http");
const request = http.get("http://127.0.0.1:${port}/api/v1/tools", (response) => {
  console.log("CONNECTED", response.statusCode);
  response.resume();
});
request.setTimeout(5000, () => request.destroy(new Error("timeout")));
request.on("error", (error) => console.log("REFUSED", error.code ?? error.message));
`;
}

describe("red team: code execution reads nothing of the router and reaches nothing on loopback", () => {
  let router: RouterProcess;
  let client: Client;
  let port: number;

  beforeAll(async () => {
    router = await startRouter(["--builtins", "--root", tmpdir()], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: ADMIN_CANARY, scopes: ["admin"] },
        { name: "clients", token: MCP_CANARY, scopes: ["mcp"] },
        { name: "services", token: REGISTER_CANARY, scopes: ["register"] },
      ]),
      TRESTLE_ROUTER_TOKEN: ROUTER_TOKEN_CANARY,
    });
    port = Number(new URL(router.url).port);
    await router.waitForLine((l) => l.includes("is serving MCP"), 60_000);
    await serviceHealthyWithToken(router.url);
    client = new Client({ name: "red-team-exec", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${MCP_CANARY}` } },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await stopAll();
  });

  async function run(language: "python" | "javascript", code: string): Promise<string> {
    const result = await client.callTool(
      { name: "execute_code", arguments: { language, code, timeoutMs: 20_000 } },
      CallToolResultSchema,
      { timeout: 60_000 },
    );
    const structured = result.structuredContent as { status?: string; stdout?: string } | undefined;
    // The attack must have run: a refusal before the program started would prove nothing.
    expect(structured?.status, JSON.stringify(result)).toBe("completed");
    return JSON.stringify(result);
  }

  function expectNoCanary(output: string) {
    for (const canary of CANARIES) expect(output).not.toContain(canary);
  }

  /** Runs a program that may be stopped (so any final status), sampling memory below the router meanwhile. */
  async function attack(
    language: "python" | "javascript",
    code: string,
  ): Promise<{ stdout: string; reachedMb: number; peaks: MemoryPeaks; result: string }> {
    const sampler = sampleMemory(router.child.pid ?? 0);
    let result: Awaited<ReturnType<typeof client.callTool>>;
    let peaks: MemoryPeaks;
    try {
      result = await client.callTool(
        { name: "execute_code", arguments: { language, code, timeoutMs: 30_000 } },
        CallToolResultSchema,
        { timeout: 60_000 },
      );
    } finally {
      peaks = sampler.stop();
    }
    const stdout = (result.structuredContent as { stdout?: string } | undefined)?.stdout ?? "";
    // The attack must have run: a refusal before the program started would prove nothing.
    expect(stdout, JSON.stringify(result)).toContain("started");
    const reached = [...stdout.matchAll(/^(?:at|stopped|REACHED) (\d+)/gm)].map((m) => Number(m[1]));
    return { stdout, reachedMb: Math.max(0, ...reached), peaks, result: JSON.stringify(result) };
  }

  it("the engine said at start which memory bound holds its runs", () => {
    const notice = router.lines.find((line) => line.includes('"memory-bound"'));
    expect(notice, router.lines.slice(-20).join("\n")).toBeDefined();
    expect(notice).toMatch(/"mode":"(cgroup|address-space)"/);
    expect(notice).toContain(`"limitMb":${LIMIT_MB}`);
  });

  it("Python writing 1 GiB to /dev/shm stops within the limit; the host's shared memory does not grow past it", async () => {
    const { stdout, reachedMb, peaks } = await attack("python", PYTHON_SHM_FILL);
    expect(stdout).not.toContain("REACHED");
    expect(reachedMb).toBeLessThan(LIMIT_MB);
    expect(peaks.hostShmemGrowthMb).toBeLessThan(LIMIT_MB);
  });

  it("JavaScript allocating 1 GiB of Buffers stops at about the limit; the sandbox's memory stays within it", async () => {
    const { stdout, reachedMb, peaks, result } = await attack("javascript", JAVASCRIPT_BUFFERS);
    expect(stdout).not.toContain("REACHED");
    expect(reachedMb).toBeLessThan(LIMIT_MB + 64);
    // Node's own resident memory (its code, about 40 MiB) comes on top of what the program allocated.
    expect(peaks.descendantsRssMb, result).toBeLessThan(LIMIT_MB + 128);
    expectNoCanary(result);
  });

  it("Python walking /proc/*/environ and /proc/*/cmdline finds no token", async () => {
    const output = await run("python", PYTHON_PROC_WALK);
    expect(output).toContain("readable");
    expectNoCanary(output);
  });

  it("JavaScript walking /proc with fs finds no token", async () => {
    const output = await run("javascript", JAVASCRIPT_PROC_WALK);
    expect(output).toContain("readable");
    expectNoCanary(output);
  });

  it("Python cannot connect to the router's port on 127.0.0.1", async () => {
    const output = await run("python", pythonLoopback(port));
    expect(output).toContain("REFUSED");
    expect(output).not.toContain("CONNECTED");
    expectNoCanary(output);
  });

  it("JavaScript cannot connect to the router's port on 127.0.0.1", async () => {
    const output = await run("javascript", javascriptLoopback(port));
    expect(output).toContain("REFUSED");
    expect(output).not.toContain("CONNECTED");
    expectNoCanary(output);
  });
});

/** Waits until the exec engine (service `trestle`) is healthy, asking with the admin token. */
async function serviceHealthyWithToken(routerUrl: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(`${routerUrl}/api/v1/capabilities`, {
      headers: { authorization: `Bearer ${ADMIN_CANARY}` },
    });
    if (response.ok) {
      const body = (await response.json()) as {
        data: { health: string; target: { serviceName: string; languageName?: string } }[];
      };
      const languages = body.data
        .filter((s) => s.target.serviceName === "trestle" && s.health === "healthy")
        .map((s) => s.target.languageName);
      if (languages.includes("python") && languages.includes("javascript")) return;
    }
    if (Date.now() > deadline) throw new Error("the exec engine did not become healthy for both languages");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
