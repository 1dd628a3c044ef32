import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterProcess, repoRoot, startRouter, stopAll } from "../support/processes.js";

/**
 * Red team, the router's children (security issue 47, finding 4): a stdio forward ran as the router's user in the
 * router's PID namespace and read `/proc/<router>/environ`, which holds `TRESTLE_TOKENS` (the admin token) and the
 * session secret however the router changes its own environment later; the built-in services could read it too (the
 * file service serves paths, the exec engine runs programs). Before the fix, the hostile forward below printed the
 * admin token, and the router's pid was in every built-in's /proc.
 *
 * Two principals: an operator (admin) adds the forwards, a client with only an `mcp` token calls them.
 */

const ADMIN_CANARY = "canary-children-admin-9d41b7e2c6a05f38";
const MCP_CANARY = "canary-children-mcp-3e7a0c91f4d26b58";
const SESSION_CANARY = "canary-children-session-secret-7b2f9e04c1d8a365";
const CANARIES = [ADMIN_CANARY, MCP_CANARY, SESSION_CANARY];

/** A hostile MCP server with no dependencies: it reads every /proc/*\/environ and cmdline it can. */
const PROC_SCAN = join(repoRoot, "packages", "transport-mcp", "test", "fixtures", "proc-scan-server.mjs");
/**
 * The forwards' homes, kept between runs: the first `npx -y` downloads server-everything into its home (more than
 * a minute here), later runs find it there, as a router's later starts do.
 */
const HOMES = join(tmpdir(), "trestle-e2e-forward-homes");

function expectNoCanary(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

/** The host pids of the processes whose parent is `parent`. */
function childrenOf(parent: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

function descendantsOf(root: number): number[] {
  const out: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = childrenOf(queue.shift() as number);
    out.push(...next);
    queue = [...queue, ...next];
  }
  return out;
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

describe("red team: no child of the router sees its secrets", () => {
  let router: RouterProcess;
  let routerPid: number;
  let client: Client;
  let roots: string;

  async function admin(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; text: string }> {
    const response = await fetch(`${router.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_CANARY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, text: await response.text() };
  }

  async function call(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
      timeout: 60_000,
    });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    return (result.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
  }

  beforeAll(async () => {
    mkdirSync(HOMES, { recursive: true, mode: 0o700 });
    roots = mkdtempSync(join(tmpdir(), "trestle-e2e-children-"));
    router = await startRouter(["--builtins", "--root", roots], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: ADMIN_CANARY, scopes: ["admin"] },
        { name: "clients", token: MCP_CANARY, scopes: ["mcp"] },
      ]),
      TRESTLE_SESSION_SECRET: SESSION_CANARY,
      TRESTLE_FORWARD_HOMES_DIR: HOMES,
    });
    routerPid = router.child.pid as number;
    await router.waitForLine((l) => l.includes("is serving MCP"), 60_000);
    const added = await admin("POST", "/api/v1/forwards", {
      name: "scanner",
      upstream: { kind: "stdio", command: process.execPath, args: [PROC_SCAN] },
    });
    expect(added.status, added.text).toBe(201);
    client = new Client({ name: "red-team-children", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${MCP_CANARY}` } },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await stopAll();
    rmSync(roots, { recursive: true, force: true });
  });

  it("a stdio forward reading every /proc/*/environ and cmdline it can finds none of the router's secrets", async () => {
    const scan = JSON.parse(await call("scan_proc")) as { pids: number[]; readable: number; text: string };
    expectNoCanary(scan.text);
    expect(scan.pids).not.toContain(routerPid);
    // The scan ran and read what it could: its own sandbox's processes, nothing else.
    expect(scan.readable).toBeGreaterThan(0);
    expect(scan.pids.length).toBeLessThan(5);
    const own = JSON.parse(await call("environment")) as { env: Record<string, string> };
    expectNoCanary(JSON.stringify(own));
    expect(Object.keys(own.env).filter((name) => name.startsWith("TRESTLE_"))).toEqual([]);
  });

  it("a forward opted out of the sandbox is logged at each start, and does read the admin token", async () => {
    const added = await admin("POST", "/api/v1/forwards", {
      name: "unconfined",
      prefix: "open_",
      upstream: { kind: "stdio", command: process.execPath, args: [PROC_SCAN], sandbox: false },
    });
    expect(added.status, added.text).toBe(201);
    expect(JSON.parse(added.text).data.upstream.sandbox).toBe(false);
    await router.waitForLine((l) => l.includes("starts unconfined (sandbox: false)"), 10_000);
    // What the sandbox keeps from a forward: the router's environment, as it was started.
    const scan = JSON.parse(await call("open_scan_proc")) as { text: string };
    expect(scan.text).toContain(ADMIN_CANARY);
    expect((await admin("DELETE", "/api/v1/forwards/unconfined")).status).toBe(200);
  });

  it("no built-in service sees the router's process: each has a PID namespace and /proc of its own", async () => {
    const builtins = descendantsOf(routerPid).filter((pid) => {
      const argv = argvOf(pid);
      return argv[0] === process.execPath && argv.includes("--router");
    });
    expect(builtins.length).toBe(3);
    for (const pid of builtins) {
      // The built-in's own view of /proc, as its mount namespace has it.
      const seen = readdirSync(`/proc/${pid}/root/proc`).filter((entry) => /^\d+$/.test(entry));
      expect(seen).not.toContain(String(routerPid));
      expect(seen.length).toBeLessThan(10);
      for (const entry of seen) {
        let environ = "";
        try {
          environ = readFileSync(`/proc/${pid}/root/proc/${entry}/environ`, "utf8");
        } catch {
          // Gone meanwhile.
        }
        expectNoCanary(environ);
      }
    }
  });

  it("the code execution engine still runs its own sandboxes inside its namespace, and they see no secret", async () => {
    const code = [
      "import os",
      "found = []",
      "for pid in os.listdir('/proc'):",
      "    if pid.isdigit():",
      "        try:",
      "            found.append(open(f'/proc/{pid}/environ', 'rb').read().decode('utf8', 'replace'))",
      "        except OSError:",
      "            pass",
      "print('scanned', len(found))",
      "print('\\n'.join(found))",
    ].join("\n");
    const result = await client.callTool(
      { name: "execute_code", arguments: { language: "python", code, timeoutMs: 20_000 } },
      CallToolResultSchema,
      { timeout: 60_000 },
    );
    expect(
      (result.structuredContent as { status?: string } | undefined)?.status,
      JSON.stringify(result),
    ).toBe("completed");
    const output = JSON.stringify(result);
    expect(output).toContain("scanned");
    expectNoCanary(output);
  });

  it("npx -y @modelcontextprotocol/server-everything works as a sandboxed forward", async () => {
    const added = await admin("POST", "/api/v1/forwards", {
      name: "everything",
      prefix: "ev_",
      command: "npx -y @modelcontextprotocol/server-everything",
      startTimeoutMs: 240_000,
    });
    expect(added.status, added.text).toBe(201);
    expect(JSON.parse(added.text).data.upstream).toMatchObject({ program: "npx", sandbox: true });
    expect(await call("ev_echo", { message: "from the sandbox" })).toContain("from the sandbox");
    // Its download stayed in its own home, not the router's.
    expect(readdirSync(join(HOMES, "forward.everything", "home", ".npm")).length).toBeGreaterThan(0);
  }, 300_000);
});
