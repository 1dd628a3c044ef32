import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, isTrestleError } from "@trestle/core";
import { buildServicePackage } from "@trestle/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecService, parseExecCommandLine } from "../src/index.js";
import { ExecutionStatus, liveProcessesIn, type ServedEngine, serveEngine } from "./engine-fixture.js";

/**
 * The sandbox's promises, each tested from inside a run: what a hostile program could try, and what it must
 * not get. The engine's own environment holds canaries shaped like the router's secrets.
 */

const TOKENS_CANARY = "canary-sandbox-tokens-4d2a9c71e8b3";
const ROUTER_TOKEN_CANARY = "canary-sandbox-router-token-7b1e5f09a6c2";
const MAX_PROCESSES = 48;

let engine: ServedEngine;
let outsideDir: string;
let listener: Server;
let listenerPort: number;
let connectionsSeen = 0;

beforeAll(async () => {
  process.env.TRESTLE_TOKENS = JSON.stringify([
    { name: "operator", token: TOKENS_CANARY, scopes: ["admin"] },
  ]);
  process.env.TRESTLE_ROUTER_TOKEN = ROUTER_TOKEN_CANARY;
  outsideDir = await mkdtemp(join(tmpdir(), "trestle-exec-sandbox-outside-"));
  await writeFile(join(outsideDir, "private.txt"), "not for programs");
  listener = createServer((socket) => {
    connectionsSeen++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  listenerPort = (listener.address() as { port: number }).port;
  engine = await serveEngine({ enableBash: true, maxProcesses: MAX_PROCESSES, python: "python3" });
});

afterAll(async () => {
  delete process.env.TRESTLE_TOKENS;
  delete process.env.TRESTLE_ROUTER_TOKEN;
  await engine?.close();
  listener?.close();
  if (outsideDir) await rm(outsideDir, { recursive: true, force: true });
});

function expectNoCanary(text: string) {
  expect(text).not.toContain(TOKENS_CANARY);
  expect(text).not.toContain(ROUTER_TOKEN_CANARY);
}

describe("the environment", () => {
  it("holds only PATH, HOME, TMPDIR, LANG and what the request sets: no token of the engine's", async () => {
    // The environment the program was started with (Python's own locale coercion may add LC_CTYPE later).
    const code = 'print(open("/proc/self/environ").read().replace("\\0", "\\n"))';
    const result = await engine.run("python", code, { environment: { GREETING: "hi" } });
    expect(result.final.status).toBe(ExecutionStatus.COMPLETED);
    const names = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => line.slice(0, line.indexOf("=")))
      .sort();
    expect(names.filter((name) => name !== "LANG")).toEqual(["GREETING", "HOME", "PATH", "TMPDIR"]);
    expectNoCanary(result.stdout);
  });
});

describe("other processes", () => {
  it("are invisible: /proc holds only the sandbox's own, and no environ or cmdline of the engine", async () => {
    const code = `
import os, json
pids = [p for p in os.listdir("/proc") if p.isdigit()]
dump = []
for pid in pids:
    for name in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                dump.append(f.read().decode("utf8", "replace"))
        except OSError as e:
            dump.append(type(e).__name__)
print(json.dumps({"pids": pids, "fds": os.listdir("/proc/self/fd"), "dump": dump, "uid": os.getuid()}))
`;
    const result = await engine.run("python", code);
    expect(result.final.status, result.stderr).toBe(ExecutionStatus.COMPLETED);
    const seen = JSON.parse(result.stdout) as { pids: string[]; fds: string[]; dump: string[]; uid: number };
    // The sandbox's init, env/prlimit/python (one process by then): nothing of the host's process tree.
    expect(seen.pids.length).toBeLessThanOrEqual(3);
    expect(seen.pids).not.toContain(String(process.pid));
    expect(seen.dump.join("\n")).not.toContain("vitest");
    expectNoCanary(result.stdout);
    // stdin, stdout, stderr and the descriptor listing /proc/self/fd: none of the engine's descriptors.
    expect(seen.fds.map(Number).every((fd) => fd <= 3)).toBe(true);
    expect(seen.uid).toBe(65534);
  });

  it("cannot be signalled: the engine's own pid means nothing inside", async () => {
    const result = await engine.run("bash", `kill -0 ${process.pid} 2>&1 && echo SIGNALLED || echo refused`);
    expect(result.stdout).toContain("refused");
    expect(result.stdout).not.toContain("SIGNALLED");
  });
});

describe("the network", () => {
  it("is closed: Python cannot connect to a port the host listens on at 127.0.0.1", async () => {
    const before = connectionsSeen;
    const code = `
import socket
try:
    s = socket.create_connection(("127.0.0.1", ${listenerPort}), timeout=3)
    print("CONNECTED", s.recv(100))
except OSError as e:
    print("refused", type(e).__name__)
`;
    const result = await engine.run("python", code);
    expect(result.stdout).toContain("refused");
    expect(result.stdout).not.toContain("CONNECTED");
    expect(connectionsSeen).toBe(before);
  });

  it("is closed: JavaScript cannot connect to it either, nor resolve or reach an outside address", async () => {
    const before = connectionsSeen;
    const code = `
const net = require("node:net");
function attempt(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.on("connect", () => { socket.destroy(); resolve("CONNECTED " + host); });
    socket.on("timeout", () => { socket.destroy(); resolve("refused " + host + " timeout"); });
    socket.on("error", (error) => resolve("refused " + host + " " + error.code));
  });
}
(async () => {
  console.log(await attempt("127.0.0.1", ${listenerPort}));
  console.log(await attempt("169.254.169.254", 80));
  console.log(await attempt("1.1.1.1", 53));
})();
`;
    const result = await engine.run("javascript", code);
    expect(result.stdout.match(/refused/g)?.length).toBe(3);
    expect(result.stdout).not.toContain("CONNECTED");
    expect(connectionsSeen).toBe(before);
  });
});

describe("the file system", () => {
  it("is writable only in the run's work directory: not /tmp, /etc, /usr or the engine's cwd", async () => {
    const targets = [join(tmpdir(), `trestle-sandbox-escape-${process.pid}`), "/etc/escape", "/usr/escape"];
    targets.push(join(process.cwd(), `trestle-sandbox-escape-${process.pid}`));
    const code = `
for target in "$@"; do
  if echo escaped > "$target" 2>/dev/null; then echo "WROTE $target"; else echo "refused $target"; fi
done
echo mine > own.txt && echo "own $(cat own.txt)"
`;
    const args = Object.fromEntries(targets.map((target, i) => [`arg${i}`, target]));
    const result = await engine.run("bash", code, { arguments: args });
    expect(result.stdout).not.toContain("WROTE");
    expect(result.stdout.match(/refused/g)?.length).toBe(targets.length);
    expect(result.stdout).toContain("own mine");
    for (const target of targets) expect(existsSync(target)).toBe(false);
  });

  it("hides the host's files: Python cannot read a file outside its work directory", async () => {
    const code = `
import sys
try:
    print("READ", open(sys.argv[1]).read())
except OSError as e:
    print("refused", type(e).__name__)
`;
    const result = await engine.run("python", code, { arguments: { arg0: join(outsideDir, "private.txt") } });
    expect(result.stdout).toBe("refused FileNotFoundError\n");
  });
});

describe("processes", () => {
  it("are bounded: a fork loop gets no further than the process limit, and nothing is left behind", async () => {
    // Bounded on purpose (300 tries): if the limit did not hold, this must not take the machine down.
    const code = `
import os, time
children = 0
error = "none"
try:
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
except OSError as e:
    error = type(e).__name__
print(os.getcwd(), children, error, flush=True)
`;
    const result = await engine.run("python", code, { timeout: 20_000n });
    const [workDir, children, error] = result.stdout.trim().split(" ");
    expect(error).toBe("BlockingIOError");
    expect(Number(children)).toBeGreaterThan(0);
    expect(Number(children)).toBeLessThan(MAX_PROCESSES);
    expect(liveProcessesIn(workDir ?? "/")).toEqual([]);
  });
});

describe("without the sandbox", () => {
  it("refuses to start when bwrap is missing", () => {
    let error: unknown;
    try {
      createExecService({ bwrapPath: "/nonexistent/bwrap", python: false });
    } catch (e) {
      error = e;
    }
    expect(isTrestleError(error, Code.FailedPrecondition)).toBe(true);
    expect((error as Error).message).toContain("/nonexistent/bwrap does not exist");
    expect((error as Error).message).toContain("--unconfined");
  });

  it("refuses to start when bwrap fails its self-test", () => {
    expect(() => createExecService({ bwrapPath: "/bin/false", python: false })).toThrow(
      /sandbox does not work: \/bin\/true exited with 1/,
    );
  });

  it("refuses --allow-network rather than open loopback", () => {
    let error: unknown;
    try {
      createExecService({ allowNetwork: true, python: false });
    } catch (e) {
      error = e;
    }
    expect(isTrestleError(error, Code.Unimplemented)).toBe(true);
  });

  it("runs unconfined only when told, warning at start and on every run", async () => {
    const warnings: string[] = [];
    const unconfined = await serveEngine({
      bwrapPath: "/nonexistent/bwrap",
      unconfined: true,
      python: false,
      onWarning: (message) => warnings.push(message),
    });
    try {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("UNCONFINED");
      const result = await unconfined.run("javascript", "console.log(process.pid)");
      // A plain child process: a pid of the engine's own namespace.
      expect(Number(result.stdout)).toBeGreaterThan(2);
      expect(warnings).toHaveLength(2);
      expect(warnings[1]).toContain("UNCONFINED");
    } finally {
      await unconfined.close();
    }
  });

  it("keeps the sandbox where it works, even when told it may run unconfined", async () => {
    const warnings: string[] = [];
    const allowed = await serveEngine({
      unconfined: true,
      python: false,
      onWarning: (message) => warnings.push(message),
    });
    try {
      // Inside its own PID namespace the program is process 2, after bwrap's init.
      const result = await allowed.run("javascript", "console.log(process.pid)");
      expect(Number(result.stdout)).toBe(2);
      expect(warnings).toEqual([]);
    } finally {
      await allowed.close();
    }
  });

  it("reads the flags and the environment variable", () => {
    expect(parseExecCommandLine([], {})).not.toHaveProperty("unconfined");
    expect(parseExecCommandLine(["--unconfined"], {})).toMatchObject({ unconfined: true });
    expect(parseExecCommandLine([], { TRESTLE_EXEC_UNCONFINED: "1" })).toMatchObject({ unconfined: true });
    expect(parseExecCommandLine([], { TRESTLE_EXEC_UNCONFINED: "0" })).not.toHaveProperty("unconfined");
    expect(parseExecCommandLine(["--bwrap", "/opt/bwrap", "--max-processes", "64"], {})).toMatchObject({
      bwrapPath: "/opt/bwrap",
      maxProcesses: 64,
    });
    expect(parseExecCommandLine(["--allow-network"], {})).toMatchObject({ allowNetwork: true });
  });

  it("trestle-exec exits with a message naming --unconfined when bwrap is missing", async () => {
    const main = await buildServicePackage(".");
    const result = spawnSync(process.execPath, [main, "--bwrap", "/nonexistent/bwrap", "--no-python"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("sandbox does not work");
    expect(result.stderr).toContain("--unconfined");
    expect(result.stdout).not.toContain('"ready"');
  }, 120_000);
});
