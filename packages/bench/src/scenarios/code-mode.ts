import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GeneratedTool, generateToolCatalog } from "@trestle/tool-search/testing";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { CodeModeSettings } from "../bench-options.js";
import { type CapabilityProcess, startCapability } from "../capability-process.js";
import { echoTool } from "../configurations.js";
import { type LatencySummary, median, summariseLatencies } from "../latency-summary.js";
import { createMcpHttpClient, type McpHttpClient } from "../mcp-http-client.js";
import { childrenOf, readSelfCpuMs, readTreeCpuMs } from "../proc-stats.js";
import { manage, type RouterProcess, startRouter } from "../router-process.js";
import { countDefinitionTokens, type DefinitionTokens } from "./code-mode-tokens.js";

/** The tokenizer the definitions are counted with (`gpt-tokenizer`, pinned in package.json). */
export const TOKENIZER = "o200k_base (gpt-tokenizer 4.0.0)";

/** The engine's bound on the calls of one run (its channel's limit): the CPU run stays within it. */
const ENGINE_CALLS_PER_RUN = 1_000;

const NS_PLAIN = "cm-plain";
const NS_SEARCH = "cm-search";
const NS_SEARCH_LARGE = "cm-search-large";
const NS_CALLS = "cm-calls";
const SERVICE = "echo-grpc";

/**
 * Needs as an agent phrases them (not the tools' own words), cycled through by the timed searches. The first one's
 * result is the "typical `search_tools` result" whose tokens are counted.
 */
export const SEARCH_QUERIES = [
  "file a bug report on our GitHub repo saying the login page crashes",
  "refund the customer's last Stripe payment",
  "post a message in the team's Slack channel",
  "ack the PagerDuty page so it stops escalating",
  "list the open pull requests waiting for review",
  "move the Jira ticket to done",
  "find error lines from the checkout service in the logs",
  "schedule a meeting with the design team next Tuesday",
  "invite a new member to the organization",
  "export the audit log for last month",
  "how much of our API quota is left",
  "create a webhook that notifies our server on every push",
] as const;

/** One way of making the sequential calls, timed over the repetitions. */
export interface SequentialVariant {
  /** e.g. `client round trips (tools/call × 50)`, `Python program`, `Python program, no calls`. */
  variant: string;
  /** Tool calls one run makes (0 for the empty program that times a run's fixed cost). */
  calls: number;
  /** Wall time of each repetition, ms, as the client saw it. */
  runsMs: number[];
  medianMs: number;
}

/** Router CPU over one run of many calls, read from `/proc/<pid>/stat` before and after. */
export interface CpuRun {
  /** `one Python program` or `client round trips`. */
  variant: string;
  calls: number;
  wallMs: number;
  /** The router process alone (utime + stime; not its children), per call, µs. */
  routerCpuUsPerCall: number;
  /** The exec built-in's process tree (the engine, bubblewrap, the program), per call, µs; absent for the client. */
  engineCpuUsPerCall?: number;
  /** The echo capability, per call, µs. */
  capabilityCpuUsPerCall: number;
}

/** What {@link runCodeMode} measured. */
export interface CodeModeMeasurement {
  tokenizer: string;
  /** Tools in the namespace whose definitions were counted. */
  definitionTools: number;
  tokens: DefinitionTokens;
  /** The query of the counted `search_tools` result, and how many tools it returned. */
  searchResultQuery: string;
  searchResultTools: number;
  sequential: { calls: number; repetitions: number; variants: SequentialVariant[] };
  search: {
    tools: number;
    searches: number;
    /** Time to add the tools through the management API, ms. */
    addMs: number;
    /** The first search after the tools were added, ms. */
    firstSearchMs: number;
    latency: LatencySummary;
  };
  cpu: CpuRun[];
}

/** Settings of {@link runCodeMode}. */
export interface CodeModeOptions extends CodeModeSettings {
  log(line: string): void;
}

/** A generated tool as the management API takes it: served by the echo capability in `namespace`. */
function catalogEntry(tool: GeneratedTool, namespace: string) {
  return { ...tool, namespace, uri: `echo://bench/${tool.name}`, type: SERVICE };
}

/**
 * Adds `tools` to a new namespace, 8 requests in flight; resolves with the time taken, ms. `onQuarter` hears the
 * time so far after each quarter of them (whether adding slows as the namespace grows).
 */
async function addTools(
  routerUrl: string,
  namespace: string,
  tools: readonly GeneratedTool[],
  onQuarter: (added: number, ms: number) => void = () => undefined,
): Promise<number> {
  const started = performance.now();
  const quarter = Math.max(1, Math.floor(tools.length / 4));
  let added = 0;
  await manage(routerUrl, "POST", "/api/v1/namespaces", { name: namespace });
  let next = 0;
  // A few requests in flight: the management API is not what is measured.
  const worker = async () => {
    while (next < tools.length) {
      const tool = tools[next++] as GeneratedTool;
      await manage(routerUrl, "POST", "/api/v1/tools", catalogEntry(tool, namespace));
      if (++added % quarter === 0) onQuarter(added, performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return performance.now() - started;
}

/** A `tools/call`'s result, or an error that says what came back instead. */
async function callTool(
  client: McpHttpClient,
  name: string,
  args: Record<string, unknown>,
): Promise<{ content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> }> {
  const reply = await client.request("tools/call", { name, arguments: args });
  const result = reply.result as
    | {
        content?: { type: string; text?: string }[];
        structuredContent?: Record<string, unknown>;
        isError?: boolean;
      }
    | undefined;
  if (reply.error || !result || result.isError)
    throw new Error(`${name} failed: ${JSON.stringify(reply.error ?? result).slice(0, 400)}`);
  return result;
}

/** Runs a program through `execute_code`; throws unless it completed and printed `expected`. */
async function runProgram(
  client: McpHttpClient,
  language: string,
  code: string,
  expected: string,
): Promise<number> {
  const started = performance.now();
  const result = await callTool(client, "execute_code", { language, code, timeoutMs: 120_000 });
  const ms = performance.now() - started;
  const out = result.structuredContent as { status?: string; stdout?: string; stderr?: string } | undefined;
  if (out?.status !== "completed" || out.stdout?.trim() !== expected)
    throw new Error(
      `the ${language} program did not print '${expected}': ${JSON.stringify(out).slice(0, 400)}`,
    );
  return ms;
}

/** A program that calls the echo `calls` times, checks each answer and prints `ok <calls>`. */
export function echoProgram(language: "python" | "javascript", calls: number): string {
  return language === "python"
    ? [
        "ok = 0",
        `for i in range(${calls}):`,
        "    if tools.echo(text=f'call {i}') == f'call {i}':",
        "        ok += 1",
        "print(f'ok {ok}')",
      ].join("\n")
    : `(async () => {
  let ok = 0;
  for (let i = 0; i < ${calls}; i++) if ((await tools.echo({ text: \`call \${i}\` })) === \`call \${i}\`) ok++;
  console.log(\`ok \${ok}\`);
})();`;
}

/** `calls` sequential echo round trips from the client; throws unless every echo comes back. */
async function clientRoundTrips(client: McpHttpClient, calls: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const result = await callTool(client, "echo", { text: `call ${i}` });
    if (result.content?.[0]?.text !== `call ${i}`)
      throw new Error(`echo ${i} came back as ${JSON.stringify(result)}`);
  }
  return performance.now() - started;
}

/** A namespace's whole `tools/list`, through every page. */
async function listAll(client: McpHttpClient): Promise<Record<string, unknown>[]> {
  const tools: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const reply = await client.request("tools/list", cursor ? { cursor } : {});
    if (reply.error) throw new Error(`tools/list failed: ${reply.error.message}`);
    const result = reply.result as { tools: Record<string, unknown>[]; nextCursor?: string };
    tools.push(...result.tools);
    cursor = result.nextCursor;
  } while (cursor);
  return tools;
}

async function readResource(client: McpHttpClient, uri: string): Promise<string> {
  const reply = await client.request("resources/read", { uri });
  const text = (reply.result as { contents?: { text?: string }[] } | undefined)?.contents?.[0]?.text;
  if (typeof text !== "string")
    throw new Error(`${uri} could not be read: ${JSON.stringify(reply).slice(0, 300)}`);
  return text;
}

/** The exec built-in's wrapper process among the router's children (its command line names service-exec). */
function execBuiltinPid(routerPid: number): number | undefined {
  return childrenOf(routerPid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("service-exec");
    } catch {
      return false;
    }
  });
}

/** Waits until a Python program runs (the built-in engine registered and healthy), at most 120 s. */
async function untilEngineRuns(client: McpHttpClient): Promise<void> {
  const end = Date.now() + 120_000;
  for (;;) {
    try {
      await runProgram(client, "python", "print('ready')", "ready");
      return;
    } catch (error) {
      if (Date.now() > end)
        throw new Error(`the built-in engine did not run a program: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function measureTokens(
  session: (namespace: string) => Promise<McpHttpClient>,
): Promise<Pick<CodeModeMeasurement, "tokens" | "searchResultQuery" | "searchResultTools">> {
  const plain = await session(NS_PLAIN);
  const plainListing = await listAll(plain);
  const executeCode = plainListing.find((t) => t.name === "execute_code");
  if (!executeCode)
    throw new Error("the plain listing has no execute_code: is the built-in engine registered?");
  const declarations = await readResource(plain, "trestle://code-mode/tools.d.ts");
  const pythonStub = await readResource(plain, "trestle://code-mode/tools.pyi");
  const search = await session(NS_SEARCH);
  const searchListing = await listAll(search);
  const names = searchListing.map((t) => t.name).sort();
  if (names.join(",") !== "call_tool,execute_code,search_tools")
    throw new Error(`tool search is not on in ${NS_SEARCH}: it lists ${names.join(", ")}`);
  const query = SEARCH_QUERIES[0];
  const found = await callTool(search, "search_tools", { query });
  const searchResultText = (found.content ?? []).map((block) => block.text ?? "").join("\n");
  const searchResultTools = ((found.structuredContent?.tools as unknown[] | undefined) ?? []).length;
  return {
    tokens: countDefinitionTokens(
      { plainListing, searchListing, searchResultText, executeCode, declarations, pythonStub },
      countTokens,
    ),
    searchResultQuery: query,
    searchResultTools,
  };
}

async function measureSequential(
  client: McpHttpClient,
  options: CodeModeOptions,
): Promise<CodeModeMeasurement["sequential"]> {
  const n = options.sequentialCalls;
  const ok = (calls: number) => `ok ${calls}`;
  const variants: Array<{ variant: string; calls: number; run: () => Promise<number> }> = [
    { variant: `client round trips (tools/call × ${n})`, calls: n, run: () => clientRoundTrips(client, n) },
    {
      variant: `one Python program (${n} calls)`,
      calls: n,
      run: () => runProgram(client, "python", echoProgram("python", n), ok(n)),
    },
    {
      variant: `one JavaScript program (${n} calls)`,
      calls: n,
      run: () => runProgram(client, "javascript", echoProgram("javascript", n), ok(n)),
    },
    {
      variant: "Python program, no calls",
      calls: 0,
      run: () => runProgram(client, "python", echoProgram("python", 0), ok(0)),
    },
    {
      variant: "JavaScript program, no calls",
      calls: 0,
      run: () => runProgram(client, "javascript", echoProgram("javascript", 0), ok(0)),
    },
  ];
  // One unmeasured pass: the first run of each language pays for cold caches (the interpreter's files, JIT).
  for (const v of variants) await v.run();
  const runs = variants.map(() => [] as number[]);
  for (let repetition = 0; repetition < options.repetitions; repetition++) {
    const order = variants.map((_, i) => i);
    if (repetition % 2 === 1) order.reverse();
    for (const i of order) (runs[i] as number[]).push(await (variants[i] as (typeof variants)[number]).run());
  }
  const measured = variants.map((v, i) => ({
    variant: v.variant,
    calls: v.calls,
    runsMs: runs[i] as number[],
    medianMs: median(runs[i] as number[]),
  }));
  for (const v of measured) options.log(`  ${v.variant.padEnd(40)} median ${v.medianMs.toFixed(0)} ms`);
  return { calls: n, repetitions: options.repetitions, variants: measured };
}

async function measureSearch(
  routerUrl: string,
  session: (namespace: string) => Promise<McpHttpClient>,
  options: CodeModeOptions,
): Promise<CodeModeMeasurement["search"]> {
  const addMs = await addTools(
    routerUrl,
    NS_SEARCH_LARGE,
    generateToolCatalog({ count: options.searchTools }),
    (added, ms) => options.log(`    ${added} tools added after ${(ms / 1000).toFixed(1)} s`),
  );
  options.log(`  added ${options.searchTools} tools in ${(addMs / 1000).toFixed(1)} s`);
  const client = await session(NS_SEARCH_LARGE);
  const search = (i: number) =>
    callTool(client, "search_tools", { query: SEARCH_QUERIES[i % SEARCH_QUERIES.length] });
  let started = performance.now();
  await search(0);
  const firstSearchMs = performance.now() - started;
  for (let i = 0; i < SEARCH_QUERIES.length; i++) await search(i);
  const latencies: number[] = [];
  for (let i = 0; i < options.searches; i++) {
    started = performance.now();
    await search(i);
    latencies.push(performance.now() - started);
  }
  const latency = summariseLatencies(latencies);
  options.log(
    `  search_tools over ${options.searchTools} tools: p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms`,
  );
  return { tools: options.searchTools, searches: options.searches, addMs, firstSearchMs, latency };
}

async function measureCpu(
  client: McpHttpClient,
  router: RouterProcess,
  capability: CapabilityProcess,
  options: CodeModeOptions,
): Promise<CpuRun[]> {
  const calls = options.cpuCalls;
  const enginePid = execBuiltinPid(router.pid);
  const window = async (variant: string, run: () => Promise<number>): Promise<CpuRun> => {
    const router0 = readSelfCpuMs(router.pid);
    const engine0 = enginePid === undefined ? 0 : readTreeCpuMs(enginePid);
    const capability0 = readSelfCpuMs(capability.pid);
    const wallMs = await run();
    const perCall = (ms: number) => (ms * 1000) / calls;
    const measured: CpuRun = {
      variant,
      calls,
      wallMs,
      routerCpuUsPerCall: perCall(readSelfCpuMs(router.pid) - router0),
      capabilityCpuUsPerCall: perCall(readSelfCpuMs(capability.pid) - capability0),
      ...(variant.startsWith("one") && enginePid !== undefined
        ? { engineCpuUsPerCall: perCall(readTreeCpuMs(enginePid) - engine0) }
        : {}),
    };
    options.log(
      `  ${variant}: ${calls} calls in ${wallMs.toFixed(0)} ms, router ${measured.routerCpuUsPerCall.toFixed(0)} µs/call`,
    );
    return measured;
  };
  return [
    await window("one Python program", () =>
      runProgram(client, "python", echoProgram("python", calls), `ok ${calls}`),
    ),
    await window("client round trips", () => clientRoundTrips(client, calls)),
  ];
}

/**
 * Code mode and tool search on `trestle serve --builtins` (the built-in exec engine runs programs in bubblewrap)
 * with the echo capability over gRPC: the tokens of what a client loads for a namespace of `definitionTools`
 * tools, three ways; `sequentialCalls` echo calls as client round trips vs one program; `search_tools` over
 * `searchTools` tools; and the router's CPU per inner call.
 * @throws Error when a setting is out of range or the router, the engine or a program fails.
 */
export async function runCodeMode(options: CodeModeOptions): Promise<CodeModeMeasurement> {
  if (options.cpuCalls > ENGINE_CALLS_PER_RUN || options.sequentialCalls > ENGINE_CALLS_PER_RUN)
    throw new Error(`a program may make at most ${ENGINE_CALLS_PER_RUN} calls (the engine's channel limit)`);
  const root = await mkdtemp(join(tmpdir(), "trestle-bench-code-mode-"));
  const capability = await startCapability();
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let router: RouterProcess | undefined;
  const clients: McpHttpClient[] = [];
  try {
    router = await startRouter({
      args: ["--memory-store", "--builtins", "--root", root],
      env: {
        TRESTLE_CODE_MODE: JSON.stringify({
          maxCallsPerRun: Math.max(options.cpuCalls, options.sequentialCalls),
        }),
        TRESTLE_TOOL_SEARCH: JSON.stringify({ namespaces: [NS_SEARCH, NS_SEARCH_LARGE] }),
        // Measured is the path of a call, not the per-principal rate limit.
        TRESTLE_RATE_LIMIT: "false",
      },
    });
    const url = router.url;
    const session = async (namespace: string) => {
      const client = createMcpHttpClient({ url: `${url}/${namespace}/mcp`, agent });
      await client.initialize();
      clients.push(client);
      return client;
    };
    await capability.register(url, { serviceName: SERVICE, serviceType: "tool-invoker", protocol: "grpc" });
    await manage(url, "POST", "/api/v1/namespaces", { name: NS_CALLS });
    await manage(url, "POST", "/api/v1/tools", echoTool(SERVICE, "echo", NS_CALLS));
    const catalog = generateToolCatalog({ count: options.definitionTools });
    await Promise.all([addTools(url, NS_PLAIN, catalog), addTools(url, NS_SEARCH, catalog)]);
    const calls = await session(NS_CALLS);
    await untilEngineRuns(calls);

    options.log(`  tokens of the definitions of ${options.definitionTools} tools (${TOKENIZER})`);
    const tokens = await measureTokens(session);
    const t = tokens.tokens;
    options.log(
      `  plain tools/list ${t.plainListing.tokens}, tool search ${t.searchListing.tokens} + ${t.searchResult.tokens} a search, ` +
        `code mode ${t.codeMode.tokens} tokens`,
    );
    const sequential = await measureSequential(calls, options);
    const cpu = await measureCpu(calls, router, capability, options);
    // Sessions left open would hear of every tool added next; none is, while the large namespace fills.
    await Promise.allSettled(clients.splice(0).map((c) => c.terminate()));
    const search = await measureSearch(url, session, options);
    return {
      tokenizer: TOKENIZER,
      definitionTools: options.definitionTools,
      ...tokens,
      sequential,
      search,
      cpu,
    };
  } finally {
    await Promise.allSettled(clients.map((c) => c.terminate()));
    agent.destroy();
    await Promise.allSettled([router?.stop(), capability.stop()]);
    await rm(root, { recursive: true, force: true });
  }
}
