#!/usr/bin/env node
/**
 * `pnpm bench`: runs the benchmark of issue 8 and writes benchmarks.md, benchmarks.json and benchmark-chart.svg.
 * See the package README for what it measures and how.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join, relative } from "node:path";
import { type BenchOptions, parseBenchOptions, runsSection, USAGE } from "./bench-options.js";
import { type BenchReport, measured, type Skipped } from "./bench-report.js";
import { defaultPinning, killAllChildren, pinCpus } from "./child-process.js";
import { type RunningConfiguration, startConfiguration } from "./configurations.js";
import { describeGitState, describeMachine } from "./machine.js";
import { packageDir, repoRoot } from "./paths.js";
import {
  findPostgresBinaries,
  type PostgresCluster,
  startPostgres,
  stopAllPostgresSync,
} from "./postgres-cluster.js";
import { codeModeMarkdown } from "./report/code-mode-report.js";
import { computeHeadlines, headlineLines } from "./report/headlines.js";
import { identityCostMarkdown, renderMarkdown } from "./report/markdown.js";
import { pathSectionMarkdown } from "./report/paths-report.js";
import { renderChart } from "./report/svg-chart.js";
import { type RouterProcess, startRouter } from "./router-process.js";
import { runCodeExecution } from "./scenarios/code-execution.js";
import { runCodeMode } from "./scenarios/code-mode.js";
import { runCrossReplica } from "./scenarios/cross-replica.js";
import { runIdentityCost } from "./scenarios/identity-cost.js";
import { measureIdleFootprint } from "./scenarios/idle-footprint.js";
import { type IdleSessionsMeasurement, measureIdleSessions } from "./scenarios/idle-sessions.js";
import { runLoadVariants } from "./scenarios/load-variants.js";
import { runMemoryUnderLoad } from "./scenarios/memory-under-load.js";
import { PATH_SECTION_NAMES } from "./scenarios/paths/path-section.js";
import { runPathSections } from "./scenarios/paths/run-paths.js";
import { runRouterProfile } from "./scenarios/router-profile.js";
import { runThroughput } from "./scenarios/throughput.js";
import { runToolsList } from "./scenarios/tools-list.js";

/** The document size of the load variants' payload runs: 16 KiB each way, a page of text. */
const LOAD_VARIANT_PAYLOAD_BYTES = 16 * 1024;

const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[${((Date.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const skipped = (reason: string): Skipped => ({ skipped: reason });
const NOT_SELECTED = "not in --only";

/** Runs a part of the benchmark; a failure becomes a note and a skipped section instead of ending the run. */
async function attempt<T extends object>(
  name: string,
  notes: string[],
  run: () => Promise<T>,
): Promise<T | Skipped> {
  log(`${name}…`);
  try {
    return await run();
  } catch (error) {
    log(`  ${name} failed: ${message(error)}`);
    notes.push(`${name} failed: ${message(error)}`);
    return skipped(`failed: ${message(error)}`);
  }
}

/**
 * The idle sessions are one principal's (the harness sends no token): a router's per-principal bounds (512 open
 * requests and streams, 16 listening streams by default) would refuse the 1,000 sessions' GET streams, so the
 * routers of this section raise them as a deployer serving that many clients under one principal would.
 */
const IDLE_SESSION_LIMITS = {
  TRESTLE_MAX_REQUESTS_PER_PRINCIPAL: "4096",
  TRESTLE_MAX_LISTEN_STREAMS_PER_PRINCIPAL: "4096",
};

/** A server the idle-sessions measurement uses, started with the configurations. */
interface SessionServer {
  label: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function startSessionServers(options: BenchOptions, cluster: Promise<PostgresCluster | Error>) {
  const servers: Array<Promise<SessionServer>> = [];
  const fromRouter = (label: string, router: RouterProcess): SessionServer => ({
    label,
    url: `${router.url}/mcp`,
    pid: router.pid,
    stop: () => router.stop(),
  });
  servers.push(
    cluster.then(async (pg) => {
      if (pg instanceof Error) throw pg;
      const databaseUrl = await pg.createDatabase("trestle_bench_sessions");
      return fromRouter(
        "trestle (PostgreSQL store)",
        await startRouter({ args: ["--database-url", databaseUrl], env: IDLE_SESSION_LIMITS }),
      );
    }),
  );
  if (options.mode === "full") {
    servers.push(
      startRouter({ env: IDLE_SESSION_LIMITS }).then((router) =>
        fromRouter("trestle (embedded PGlite store, in memory)", router),
      ),
    );
  }
  servers.push(
    startConfiguration("bound-mcp").then((bound) => ({
      label: "bound-mcp (MCP SDK, a transport and server per session)",
      url: bound.target.kind === "mcp" ? bound.target.url : "",
      pid: bound.serverPid,
      stop: () => bound.stop(),
    })),
  );
  return Promise.all(servers.map((p) => p.catch((error: unknown) => error as Error)));
}

async function bench(options: BenchOptions): Promise<BenchReport> {
  const startedAt = new Date();
  const machine = describeMachine();
  const git = describeGitState(repoRoot);
  const notes: string[] = [];
  log(
    `trestle bench (${options.mode}) on ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; ` +
      `commit ${git.commit.slice(0, 12)}${git.uncommittedFiles.length ? " (+ uncommitted changes)" : ""}; ` +
      `load average ${machine.loadAverageAtStart.join(" ")}`,
  );

  const pinning = options.pin ? defaultPinning() : "--no-pin";
  if (typeof pinning === "string") log(`not pinned to CPUs: ${pinning}`);
  else {
    pinCpus(pinning);
    log(
      `pinned: every server-side process on CPU ${pinning.server}, the load generator on CPU ${pinning.load}`,
    );
  }

  // Everything that must start is started together: routers take seconds to open their store.
  log("starting the configurations…");
  const selected = (name: Parameters<typeof runsSection>[1]) => runsSection(options, name);
  const needsPostgres = selected("idle-sessions") || (options.crossReplica && selected("cross-replica"));
  const cluster: Promise<PostgresCluster | Error> = !needsPostgres
    ? Promise.resolve(new Error(NOT_SELECTED))
    : findPostgresBinaries()
      ? startPostgres().catch((error: unknown) => error as Error)
      : Promise.resolve(new Error("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"));
  const startedConfigurations = (selected("throughput") ? options.configurations : []).map((name) =>
    startConfiguration(name).then(
      (running) => ({ name, running }),
      (error: unknown) => ({ name, error }),
    ),
  );
  const sessionServers = selected("idle-sessions")
    ? startSessionServers(options, cluster)
    : Promise.resolve([]);
  const running: RunningConfiguration[] = [];
  for (const outcome of await Promise.all(startedConfigurations)) {
    if ("running" in outcome) running.push(outcome.running);
    else {
      log(`  ${outcome.name} could not run: ${message(outcome.error)}`);
      notes.push(`${outcome.name} could not run here and is left out: ${message(outcome.error)}`);
    }
  }
  const sessions = await sessionServers;
  const pg = await cluster;
  if (pg instanceof Error && needsPostgres) notes.push(`PostgreSQL could not start: ${pg.message}`);

  try {
    if (selected("throughput"))
      log(
        `throughput: ${options.rounds} round(s) × concurrency ${options.concurrencies.join("/")} × ` +
          `${running.length} configurations, ${options.warmupMs} ms warm-up + ${options.durationMs} ms each`,
      );
    const throughput = selected("throughput")
      ? await runThroughput(running, {
          concurrencies: options.concurrencies,
          rounds: options.rounds,
          warmupMs: options.warmupMs,
          durationMs: options.durationMs,
          preWarmMs: options.preWarmMs,
          log,
        })
      : { cells: [], configurations: [], schedule: [] };

    const trestle = running.find((c) => c.name === "trestle-grpc");
    const router = trestle?.router;
    const capability = trestle?.capability;
    const toolsList = router
      ? await attempt("tools/list", notes, () =>
          runToolsList(router.url, {
            sizes: options.toolListSizes,
            repetitions: options.toolListRepetitions,
            log,
          }),
        )
      : skipped(selected("throughput") ? "trestle-grpc did not run" : NOT_SELECTED);
    const codeExecution =
      router && capability
        ? await attempt("code execution streaming", notes, () =>
            runCodeExecution(router.url, capability, options.codeExecution),
          )
        : skipped(selected("throughput") ? "trestle-grpc did not run" : NOT_SELECTED);
    const loadVariants = !selected("throughput")
      ? skipped(NOT_SELECTED)
      : await attempt("load variants (c16: a watcher, 16 KiB payloads)", notes, () =>
          runLoadVariants(running, {
            concurrency: 16,
            rounds: options.rounds,
            warmupMs: options.warmupMs,
            durationMs: options.durationMs,
            payloadBytes: LOAD_VARIANT_PAYLOAD_BYTES,
            log,
          }),
        );
    await Promise.allSettled(running.splice(0).map((c) => c.stop()));
    const identityCost = !selected("identity")
      ? skipped(NOT_SELECTED)
      : await attempt("the cost of identity (c16: static token vs JWT + 5 CEL rules)", notes, () =>
          runIdentityCost({
            concurrency: 16,
            rounds: options.rounds,
            warmupMs: options.warmupMs,
            durationMs: options.durationMs,
            log,
          }),
        );
    const paths = await runPathSections({
      concurrency: 16,
      rounds: options.rounds,
      ...options.paths,
      selected,
      log,
      attempt: (name, run) => attempt(name, notes, run),
    });

    const codeMode = !selected("code-mode")
      ? skipped(NOT_SELECTED)
      : await attempt("code mode and tool search (tokens, round trips vs one program, search)", notes, () =>
          runCodeMode({ ...options.codeMode, log }),
        );

    const idleSessions = !selected("idle-sessions")
      ? skipped(NOT_SELECTED)
      : await attempt("idle sessions", notes, async () => {
          const results: IdleSessionsMeasurement[] = [];
          for (const server of sessions) {
            if (server instanceof Error) {
              notes.push(`an idle-sessions server could not start: ${server.message}`);
              continue;
            }
            const m = await measureIdleSessions(server.label, server.url, server.pid, options.idleSessions);
            log(
              `  ${m.server}: ${(m.rssBeforeBytes / 2 ** 20).toFixed(0)} → ${(m.rssAfterBytes / 2 ** 20).toFixed(0)} MiB`,
            );
            results.push(m);
            await server.stop();
          }
          return results;
        });

    const idleFootprint = !selected("footprint")
      ? skipped(NOT_SELECTED)
      : options.footprint
        ? await attempt("idle footprint of trestle serve --builtins", notes, () => measureIdleFootprint(log))
        : skipped("--no-footprint");

    const profile = !selected("profile")
      ? skipped(NOT_SELECTED)
      : options.profile
        ? await attempt("router CPU profile (trestle-grpc, c16)", notes, () =>
            runRouterProfile({ concurrency: 16, warmupMs: 3_000, durationMs: 8_000 }),
          )
        : skipped(options.mode === "quick" ? "not in --quick" : "--no-profile");
    const crossReplica = !selected("cross-replica")
      ? skipped(NOT_SELECTED)
      : !options.crossReplica
        ? skipped(options.mode === "quick" ? "not in --quick" : "--no-replicas")
        : pg instanceof Error
          ? skipped(`PostgreSQL could not start: ${pg.message}`)
          : await attempt("cross-replica catalog change (PostgreSQL)", notes, () =>
              runCrossReplica(pg, options.replicaChanges, log),
            );

    const soak = options.soak;
    const memoryUnderLoad = !selected("soak")
      ? skipped(NOT_SELECTED)
      : !soak
        ? skipped(options.mode === "quick" ? "not in --quick without --soak-minutes" : "--no-soak")
        : await attempt(
            `memory under load (trestle-grpc, c${soak.concurrency}, ${(soak.durationMs / 60_000).toFixed(1)} min)`,
            notes,
            () => runMemoryUnderLoad({ ...soak, log }),
          );

    machine.loadAverageAtEnd = loadavg().map((l) => Math.round(l * 100) / 100);
    const partial = {
      mode: options.mode,
      startedAt: startedAt.toISOString(),
      durationSeconds: (Date.now() - startedAt.getTime()) / 1000,
      machine,
      git,
      settings: {
        concurrencies: options.concurrencies,
        rounds: options.rounds,
        warmupMs: options.warmupMs,
        durationMs: options.durationMs,
        preWarmMs: options.preWarmMs,
        cpuPinning: typeof pinning === "string" ? { unpinned: pinning } : pinning,
      },
      throughput,
      toolsList,
      idleSessions,
      idleFootprint,
      codeExecution,
      loadVariants,
      identityCost,
      codeMode,
      paths,
      crossReplica,
      profile,
      memoryUnderLoad,
      notes,
    };
    return { ...partial, headlines: computeHeadlines(partial) };
  } finally {
    await Promise.allSettled(running.map((c) => c.stop()));
    await Promise.allSettled(sessions.map((s) => (s instanceof Error ? undefined : s.stop())));
    if (!(pg instanceof Error)) await pg.stop();
  }
}

/**
 * Formats a written JSON file the way the repository's linter wants it (short arrays on one line), so that a
 * committed report passes `pnpm lint`. Best effort: without Biome the file stays as JSON.stringify wrote it.
 */
function formatWithBiome(file: string): void {
  const biome = join(repoRoot, "node_modules/.bin/biome");
  if (!existsSync(biome)) return;
  spawnSync(biome, ["format", "--write", file], { cwd: repoRoot, stdio: "ignore" });
}

/** The throughput cells as a table on stderr, when there are any. */
function logThroughputCells(report: BenchReport): void {
  if (report.throughput.cells.length === 0) return;
  log("");
  log("configuration     c   calls/s   p50 ms   p99 ms  errors  server µs/call");
  for (const cell of report.throughput.cells) {
    log(
      `${cell.configuration.padEnd(16)} ${String(cell.concurrency).padStart(3)} ${cell.callsPerSecond.toFixed(0).padStart(9)} ` +
        `${cell.p50Ms.toFixed(2).padStart(8)} ${cell.p99Ms.toFixed(2).padStart(8)} ${String(cell.errors).padStart(7)} ` +
        `${cell.serverCpuUsPerCall.toFixed(0).padStart(15)}`,
    );
  }
}

/**
 * What a `--only` run prints: the markdown of the identity and path sections it ran, and the JSON of the others
 * (the throughput cells are logged as a table).
 */
function selectedSectionsText(report: BenchReport, only: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  if (only.has("identity") && report.identityCost) {
    lines.push("## The cost of identity", "");
    if (measured(report.identityCost)) lines.push(...identityCostMarkdown(report.identityCost), "");
    else lines.push(`Skipped: ${report.identityCost.skipped}`, "");
  }
  if (only.has("code-mode") && report.codeMode) {
    lines.push("## Code mode and tool search", "");
    if (measured(report.codeMode)) lines.push(...codeModeMarkdown(report.codeMode), "");
    else lines.push(`Skipped: ${report.codeMode.skipped}`, "");
  }
  for (const name of PATH_SECTION_NAMES) {
    const section = report.paths?.[name];
    if (!only.has(name) || !section) continue;
    if (measured(section)) lines.push(`## ${section.title}`, "", ...pathSectionMarkdown(section));
    else lines.push(`## ${name}`, "", `Skipped: ${section.skipped}`, "");
  }
  const others = {
    "idle-sessions": report.idleSessions,
    footprint: report.idleFootprint,
    profile: report.profile,
    "cross-replica": report.crossReplica,
    soak: report.memoryUnderLoad,
  };
  for (const [name, value] of Object.entries(others)) {
    if (only.has(name) && value)
      lines.push(`## ${name}`, "", "```json", JSON.stringify(value, null, 2), "```", "");
  }
  return lines;
}

async function main(): Promise<void> {
  let options: ReturnType<typeof parseBenchOptions>;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${message(error)}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const report = await bench(options);
  if (options.only !== undefined) {
    // A selection is a partial run: it prints what it measured and writes no report.
    process.stdout.write(`\n${selectedSectionsText(report, options.only).join("\n")}\n`);
    logThroughputCells(report);
    for (const note of report.notes) log(`note: ${note}`);
    process.stdout.write(`\nHeadline figures\n${headlineLines(report.headlines).join("\n")}\n`);
    return;
  }
  const out = options.out ?? (options.mode === "full" ? join(repoRoot, "docs") : join(packageDir, "results"));
  await mkdir(out, { recursive: true });
  const chartFile = "benchmark-chart.svg";
  const subtitle =
    `${report.machine.cpuModel}, ${report.machine.cores} cores, Node ${report.machine.node}; commit ` +
    `${report.git.commit.slice(0, 12)}; ${report.settings.rounds} interleaved round(s) of ${report.settings.durationMs / 1000} s; ${report.startedAt.slice(0, 10)}`;
  const jsonFile = join(out, "benchmarks.json");
  await writeFile(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  formatWithBiome(jsonFile);
  await writeFile(join(out, chartFile), renderChart(report.throughput.cells, subtitle));
  await writeFile(join(out, "benchmarks.md"), renderMarkdown(report, chartFile));

  const rel = relative(process.cwd(), out) || ".";
  log("");
  log(
    `wrote ${rel}/benchmarks.md, ${rel}/benchmarks.json, ${rel}/${chartFile} (${Math.round(report.durationSeconds)} s)`,
  );
  logThroughputCells(report);
  for (const note of report.notes) log(`note: ${note}`);
  process.stdout.write(`\nHeadline ratios\n${headlineLines(report.headlines).join("\n")}\n`);
}

const abort = (error: unknown) => {
  killAllChildren();
  stopAllPostgresSync();
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
};
process.once("SIGINT", () => abort(new Error("interrupted")));
process.once("SIGTERM", () => abort(new Error("terminated")));
process.on("uncaughtException", abort);
main().then(() => {
  killAllChildren();
}, abort);
