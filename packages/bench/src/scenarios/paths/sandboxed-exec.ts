import { spawnSync } from "node:child_process";
import { Agent } from "node:http";
import { summariseLatencies } from "../../latency-summary.js";
import { createMcpHttpClient } from "../../mcp-http-client.js";
import { type RouterProcess, startRouter } from "../../router-process.js";
import { addForward, removeForward, stdioEchoForward } from "./forwards.js";
import { type PathComparisonOptions, runPathComparison } from "./path-comparison.js";
import type { PathRow } from "./path-rows.js";
import { type LatencyRow, PATH_SECTION_TITLES, type PathSection } from "./path-section.js";

/** Settings of {@link runSandboxedExec}: the comparison's, and how many times to start things one at a time. */
export interface SandboxedExecOptions extends PathComparisonOptions {
  /** Starts of a sandboxed stdio forward, and of each bare interpreter. */
  starts: number;
}

/** The p50 target of a sandboxed `print(1)` (issue 52), ms. */
export const SANDBOXED_PRINT_P50_TARGET_MS = 100;

/** Waits until the built-in exec service is healthy for both languages. */
async function untilExecReady(routerUrl: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${routerUrl}/api/v1/capabilities`);
    if (response.ok) {
      const body = (await response.json()) as {
        data: { health: string; target: { languageName?: string } }[];
      };
      const ready = body.data.filter((s) => s.health === "healthy").map((s) => s.target.languageName);
      if (ready.includes("python") && ready.includes("javascript")) return;
    }
    if (Date.now() > deadline)
      throw new Error("the built-in exec service did not become healthy for both languages");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A latency row from a load row (c1: each call one at a time). */
function latencyRowOf(row: PathRow): LatencyRow {
  return {
    label: row.label,
    count: row.calls,
    p50Ms: row.p50Ms,
    p99Ms: row.p99Ms,
    maxMs: row.maxMs,
    errors: row.errors,
    serverCpuUsPerCall: row.serverCpuUsPerCall,
    treeCpuUsPerCall: row.treeCpuUsPerCall,
  };
}

/** Times `starts` runs of a command from the harness, one after the other (what the interpreter's start costs). */
function timeCommand(label: string, command: string, args: readonly string[], starts: number): LatencyRow {
  const latencies: number[] = [];
  let errors = 0;
  for (let i = 0; i < starts; i++) {
    const begin = performance.now();
    const run = spawnSync(command, args, { stdio: ["ignore", "pipe", "ignore"], timeout: 30_000, env: {} });
    if (run.status === 0 && String(run.stdout).trim() === "1") latencies.push(performance.now() - begin);
    else errors++;
  }
  const summary = summariseLatencies(latencies);
  return { label, count: summary.count, p50Ms: summary.p50, p99Ms: summary.p99, maxMs: summary.max, errors };
}

/**
 * The time from adding a sandboxed stdio forward to its tool being listed: `POST /api/v1/forwards` (the router
 * starts the server in its sandbox, initializes it and imports its catalog), then `tools/list` until it holds
 * the tool. Each start is a new forward, removed afterwards.
 */
async function timeForwardStarts(routerUrl: string, starts: number): Promise<LatencyRow> {
  const agent = new Agent({ keepAlive: true });
  const client = createMcpHttpClient({ url: `${routerUrl}/mcp`, agent });
  const latencies: number[] = [];
  let errors = 0;
  try {
    await client.initialize();
    for (let i = 1; i <= starts; i++) {
      const name = `start-${i}`;
      const begin = performance.now();
      try {
        await addForward(routerUrl, { ...stdioEchoForward(name), prefix: `s${i}_` });
        for (;;) {
          const reply = await client.request("tools/list", {});
          const tools = (reply.result as { tools?: { name: string }[] } | undefined)?.tools ?? [];
          if (tools.some((t) => t.name === `s${i}_echo`)) break;
          if (performance.now() - begin > 30_000) throw new Error(`s${i}_echo was not listed within 30 s`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        latencies.push(performance.now() - begin);
      } catch {
        errors++;
      }
      await removeForward(routerUrl, name).catch(() => undefined);
    }
    await client.terminate();
  } finally {
    agent.destroy();
  }
  const summary = summariseLatencies(latencies);
  return {
    label: "sandboxed stdio forward: POST /api/v1/forwards → its tool in tools/list",
    count: summary.count,
    p50Ms: summary.p50,
    p99Ms: summary.p99,
    maxMs: summary.max,
    errors,
  };
}

/**
 * A sandboxed `print(1)`: `execute_code` through `trestle serve --builtins` (the built-in exec service runs each
 * program in bubblewrap), Python and JavaScript, one call at a time; the bare interpreters' start beside it; and
 * the start time of a sandboxed stdio forward.
 */
export async function runSandboxedExec(options: SandboxedExecOptions): Promise<PathSection> {
  let router: RouterProcess | undefined;
  try {
    router = await startRouter({ args: ["--builtins", "--memory-store"] });
    await untilExecReady(router.url);
    const url = `${router.url}/mcp`;
    const program = (language: string, code: string) => ({
      kind: "mcp" as const,
      url,
      tool: "execute_code",
      openStream: true,
      fixed: { arguments: { language, code }, expect: "1" },
    });
    const rows = await runPathComparison(
      [
        {
          label: "execute_code python `print(1)`",
          target: program("python", "print(1)"),
          serverPid: router.pid,
        },
        {
          label: "execute_code javascript `console.log(1)`",
          target: program("javascript", "console.log(1)"),
          serverPid: router.pid,
        },
      ],
      { ...options, concurrency: 1 },
    );
    const forwardStart = await timeForwardStarts(router.url, options.starts);
    const bounds = [
      timeCommand(
        "bare `python3 -c 'print(1)'` (no sandbox, no router)",
        "python3",
        ["-c", "print(1)"],
        options.starts,
      ),
      timeCommand(
        "bare `node -e 'console.log(1)'` (no sandbox, no router)",
        process.execPath,
        ["-e", "console.log(1)"],
        options.starts,
      ),
    ];
    const [python, javascript] = rows;
    const p50Headline = (row: PathRow | undefined, language: string) => ({
      name: `sandboxed ${language} print(1) through execute_code, p50`,
      value: row?.p50Ms ?? Number.NaN,
      unit: "ms",
      target: `≤ ${SANDBOXED_PRINT_P50_TARGET_MS}`,
      met: (row?.p50Ms ?? Number.NaN) <= SANDBOXED_PRINT_P50_TARGET_MS,
      detail: `p99 ${row ? row.p99Ms.toFixed(1) : "n/a"} ms over ${row?.calls ?? 0} calls one at a time; router CPU ${row ? row.serverCpuUsPerCall.toFixed(0) : "n/a"} µs/call, with the built-ins and sandboxes ${row ? row.treeCpuUsPerCall.toFixed(0) : "n/a"} µs/call`,
    });
    return {
      name: "sandbox",
      title: PATH_SECTION_TITLES.sandbox,
      method:
        "`trestle serve --builtins --memory-store`: the built-in exec service runs every program in bubblewrap. " +
        "The load generator calls `execute_code` one call at a time (concurrency 1) with `print(1)` in Python and " +
        "`console.log(1)` in JavaScript and checks the output; the latency is the whole MCP call. *Router* CPU is " +
        "the router process's; *with children* adds the built-in services and the sandboxes they ran. The bare " +
        "interpreters are started by the harness itself (on its own CPU), one after the other, without a sandbox or a router: the " +
        "part of the call no router work can remove. The forward's start is the time from `POST /api/v1/forwards` " +
        "(the stdio echo server started in its sandbox, initialized, its catalog imported) to its tool in the " +
        "`tools/list` of an open session, on the same router, each start a new forward removed afterwards.",
      rows: [],
      latencyRows: [...rows.map(latencyRowOf), ...bounds, forwardStart],
      headlines: [
        p50Headline(python, "Python"),
        p50Headline(javascript, "JavaScript"),
        {
          name: "sandboxed stdio forward: added → its tool listed, p50",
          value: forwardStart.p50Ms,
          unit: "ms",
          target: "",
          detail: `max ${forwardStart.maxMs.toFixed(0)} ms over ${forwardStart.count} starts (POST /api/v1/forwards, then tools/list until the tool is there)`,
        },
      ],
    };
  } finally {
    await router?.stop();
  }
}
