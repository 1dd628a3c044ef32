import type { CodeModeMeasurement } from "../scenarios/code-mode.js";

const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "n/a");
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const share = (part: number, whole: number) =>
  whole > 0 && Number.isFinite(part) ? `${fixed((100 * part) / whole, part / whole < 0.1 ? 1 : 0)} %` : "–";

/** The wall time of one program call beyond the empty program's: (program − empty) ÷ calls, ms. */
export function perCallBeyondEmpty(programMs: number, emptyMs: number, calls: number): number {
  return calls > 0 ? (programMs - emptyMs) / calls : Number.NaN;
}

/**
 * The code-mode section of `benchmarks.md`: definition tokens three ways, sequential calls as round trips vs one
 * program, `search_tools` latency, and the router's CPU per inner call.
 */
export function codeModeMarkdown(m: CodeModeMeasurement): string[] {
  const t = m.tokens;
  const plain = t.plainListing.tokens;
  const row = (way: string, tokens: number, bytes: number, what: string) =>
    `| ${way} | ${int(tokens)} | ${share(tokens, plain)} | ${int(bytes / 1024)} | ${what} |`;
  const variants = m.sequential.variants;
  const clientRun = variants.find((v) => v.variant.startsWith("client"));
  const emptyOf = (language: string) => variants.find((v) => v.calls === 0 && v.variant.startsWith(language));
  const sequentialRows = variants.map((v) => {
    const language = /(Python|JavaScript)/.exec(v.variant)?.[1];
    const empty = language && v.calls > 0 ? emptyOf(language) : undefined;
    const perCall = empty
      ? perCallBeyondEmpty(v.medianMs, empty.medianMs, v.calls)
      : v.calls > 0
        ? v.medianMs / v.calls
        : Number.NaN;
    const ratio =
      clientRun && clientRun !== v && v.calls > 0 && v.medianMs > 0
        ? `${fixed(clientRun.medianMs / v.medianMs, 2)} ×`
        : "–";
    return (
      `| ${v.variant} | ${int(v.medianMs)} | ${int(Math.min(...v.runsMs))}–${int(Math.max(...v.runsMs))} | ` +
      `${fixed(perCall, 2)} | ${ratio} |`
    );
  });
  const s = m.search;
  return [
    `\`trestle serve --memory-store --builtins\` (the built-in exec engine runs each program in bubblewrap), the echo ` +
      "capability registered over gRPC, the per-principal rate limit off. Each namespace's tools come from the " +
      "seeded catalog generator of `@trestle/tool-search/testing` (a realistic SaaS catalog: descriptions, argument " +
      "schemas, output schemas, annotations), added through the management API.",
    "",
    `### Tokens of the tool definitions a client loads (${int(m.definitionTools)} tools, ${m.tokenizer})`,
    "",
    `Counted on what the router served: the plain \`tools/list\` (${int(t.listedTools)} tools: the namespace's and ` +
      "`execute_code`), the same tools' `tools/list` with tool search on, one `search_tools` result (its text block, " +
      `the default limit: ${m.searchResultTools} tools for “${m.searchResultQuery}”; paid again for each search), ` +
      "and code mode's `execute_code` definition plus the `trestle://code-mode/tools.d.ts` resource. Listings are " +
      'counted as compact JSON `{"tools":[…]}`.',
    "",
    "| what the client loads | tokens | of the plain listing | KiB | |",
    "|---|---:|---:|---:|---|",
    row("plain `tools/list`", plain, t.plainListing.bytes, "every definition, once per session"),
    row("tool search: `tools/list`", t.searchListing.tokens, t.searchListing.bytes, "once per session"),
    row("tool search: one `search_tools` result", t.searchResult.tokens, t.searchResult.bytes, "per search"),
    row(
      "code mode: `execute_code` + `tools.d.ts`",
      t.codeMode.tokens,
      t.codeMode.bytes,
      `of which the declarations ${int(t.declarations.tokens)}`,
    ),
    row(
      "code mode, Python: `tools.pyi`",
      t.pythonStub.tokens,
      t.pythonStub.bytes,
      "instead of the declarations",
    ),
    "",
    `### ${m.sequential.calls} sequential tool calls: client round trips vs one program`,
    "",
    `The echo tool called ${m.sequential.calls} times in a row, each answer checked: as ${m.sequential.calls} MCP ` +
      "`tools/call` round trips from the client (one keep-alive connection, no model in the loop: only the " +
      "transport's time), or as one `execute_code` whose program makes the calls through `tools`. The programs " +
      "without calls time a run's fixed cost (sandbox, interpreter, prelude, fetching the tools); *per call* of a " +
      `program is (program − its empty program) ÷ ${m.sequential.calls}. Medians of ${m.sequential.repetitions} ` +
      "interleaved repetitions after an unmeasured pass.",
    "",
    "| how | median ms | min–max ms | ms per call | client round trips ÷ this |",
    "|---|---:|---|---:|---:|",
    ...sequentialRows,
    "",
    `### \`search_tools\` over ${int(s.tools)} tools`,
    "",
    `${int(s.searches)} searches in one session, one at a time, cycling through agent-phrased needs, after a ` +
      "warm-up pass; latency as the client saw it (MCP over loopback HTTP, JSON parsing included). *First* is the " +
      `first search after the tools were added (${fixed(s.addMs / 1000, 1)} s through the management API).`,
    "",
    "| tools | searches | p50 ms | p90 ms | p99 ms | max ms | first ms |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    `| ${int(s.tools)} | ${int(s.searches)} | ${fixed(s.latency.p50, 2)} | ${fixed(s.latency.p90, 2)} | ${fixed(s.latency.p99, 2)} | ${fixed(s.latency.max, 2)} | ${fixed(s.firstSearchMs, 1)} |`,
    "",
    "### Router CPU per inner call",
    "",
    "CPU time (utime + stime from `/proc/<pid>/stat`, 10 ms ticks) over one run, divided by its calls, nothing " +
      "subtracted. The router's includes all it did in the window: for the program, the `execute_code` call (minting " +
      "the run, the `ExecuteCode` stream, relaying its output), the engine's fetch of the tools, each inner call's " +
      "`POST /internal/code-mode/v1/call` (capability check, call service: policy, limits, events) and its gRPC " +
      "call to the echo; for the client, each `tools/call`; in both, its idle work (health probes, heartbeats). The " +
      "engine's is the exec built-in's process tree: the engine, bubblewrap and the program.",
    "",
    "| run | calls | wall ms | router µs/call | engine + program µs/call | echo capability µs/call |",
    "|---|---:|---:|---:|---:|---:|",
    ...m.cpu.map(
      (c) =>
        `| ${c.variant} | ${int(c.calls)} | ${int(c.wallMs)} | ${int(c.routerCpuUsPerCall)} | ${c.engineCpuUsPerCall === undefined ? "–" : int(c.engineCpuUsPerCall)} | ${int(c.capabilityCpuUsPerCall)} |`,
    ),
  ];
}
