import { parseArgs } from "node:util";
import { CONFIGURATION_NAMES, type ConfigurationName } from "./configurations.js";
import { PATH_SECTION_NAMES } from "./scenarios/paths/path-section.js";

/**
 * The sections `--only` selects, in the order a run makes them. `throughput` is the configurations' runs and what
 * uses their routers (tools/list, code-execution streaming, the load variants); its configurations come from
 * `--configurations`.
 */
export const SECTION_NAMES = [
  "throughput",
  "identity",
  ...PATH_SECTION_NAMES,
  "idle-sessions",
  "footprint",
  "profile",
  "cross-replica",
  "soak",
  "code-mode",
] as const;

/** One section's name. */
export type SectionName = (typeof SECTION_NAMES)[number];

/** What a run of the harness does. */
export interface BenchOptions {
  mode: "full" | "quick";
  /** Directory for benchmarks.md, benchmarks.json and benchmark-chart.svg; undefined = the mode's default. */
  out: string | undefined;
  configurations: ConfigurationName[];
  concurrencies: number[];
  rounds: number;
  warmupMs: number;
  durationMs: number;
  /** Unmeasured load per configuration before round 1 (JIT warm-up). */
  preWarmMs: number;
  toolListSizes: number[];
  toolListRepetitions: number;
  idleSessions: number;
  codeExecution: { calls: number; chunksPerCall: number; intervalMs: number };
  profile: boolean;
  crossReplica: boolean;
  /** Measure the idle footprint of `trestle serve --builtins` on a fresh and a reopened data directory. */
  footprint: boolean;
  /** Pin the server side and the load generator to one CPU each with `taskset` (when the machine allows). */
  pin: boolean;
  replicaChanges: number;
  /** The soak (router memory under a long load, issue 19); undefined: not run. */
  soak: SoakOptions | undefined;
  /**
   * The sections to run (`--only a,b`; `--identity-only` is `--only identity`); undefined: every section. With a
   * selection the run prints what it measured and writes nothing.
   */
  only: ReadonlySet<string> | undefined;
  /** Warm-up and measured window of each run of the path sections (stdio and HTTP forwards, A2A, tracing…). */
  paths: { warmupMs: number; durationMs: number; starts: number };
  /** Code mode and tool search (issue 51): definition tokens, round trips vs one program, search latency. */
  codeMode: CodeModeSettings;
}

/** Settings of the code-mode section (see `src/scenarios/code-mode.ts`). */
export interface CodeModeSettings {
  /** Tools in the namespace whose definitions are counted. */
  definitionTools: number;
  /** Sequential tool calls compared: client round trips vs one program. */
  sequentialCalls: number;
  /** Timed runs of each way of making the sequential calls. */
  repetitions: number;
  /** Tools in the namespace `search_tools` is timed over. */
  searchTools: number;
  /** Timed `search_tools` calls. */
  searches: number;
  /** Inner calls of the program whose router CPU is read. */
  cpuCalls: number;
}

/** Whether a run with these options makes the section `name`. */
export function runsSection(options: Pick<BenchOptions, "only">, name: SectionName): boolean {
  return options.only === undefined || options.only.has(name);
}

/** Settings of the soak: trestle-grpc under load while its RSS is sampled. */
export interface SoakOptions {
  concurrency: number;
  /** Unmeasured load first, so that the bounded call history and the caches fill. */
  warmupMs: number;
  durationMs: number;
  sampleIntervalMs: number;
}

/** The usage text. */
export const USAGE = `usage: pnpm bench [--quick] [--out DIR] [--rounds N] [--duration-ms N] [--warmup-ms N]
                  [--configurations a,b,...] [--no-profile] [--no-replicas] [--no-footprint] [--no-pin]
                  [--soak-minutes N | --no-soak] [--only SECTION[,SECTION…]] [--identity-only]

  --quick            one short round, 100 and 1,000 tools, no profile, no cross-replica run (every section, shorter);
                     writes packages/bench/results/ unless --out says otherwise
  (default)          3 rounds of 5 s per configuration and concurrency, 100 / 1,000 / 10,000 tools, router
                     profile, cross-replica change time, the path sections (14–16 minutes); writes docs/
  --configurations   a subset of: ${CONFIGURATION_NAMES.join(", ")}
  --no-footprint     skip the idle footprint of \`trestle serve --builtins\` (fresh and reopened data directory)
  --soak-minutes N   the soak: trestle-grpc at concurrency 16 for 30 s of warm-up, then N minutes (a decimal
                     is allowed) while the router's RSS is sampled every 5 s; memory growth per call is fitted.
                     Default 10 in a full run; in --quick it runs only when this flag is given
  --no-soak          skip the soak
  --only a,b         only these sections; prints what they measured, writes nothing. Sections: ${SECTION_NAMES.join(", ")}
  --identity-only    the same as --only identity: calls/s at c16 with a static token vs an OAuth JWT and five CEL
                     rules, in interleaved rounds (--rounds, --warmup-ms, --duration-ms apply)
  --no-pin           do not pin with taskset (default: every server-side process on CPU 0, the load generator
                     and the harness on CPU 1, when there are 2 CPUs or more)`;

function positive(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, not '${text}'`);
  return n;
}

function positiveNumber(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n <= 0)
    throw new Error(`--${name} must be a positive number, not '${text}'`);
  return n;
}

/** The `--only` selection (with `--identity-only` added), or undefined for every section. */
function parseOnly(only: string | undefined, identityOnly: boolean): ReadonlySet<string> | undefined {
  if (only === undefined) return identityOnly ? new Set(["identity"]) : undefined;
  const wanted = only
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (wanted.length === 0) throw new Error(`--only needs section names; known: ${SECTION_NAMES.join(", ")}`);
  const unknown = wanted.filter((w) => !(SECTION_NAMES as readonly string[]).includes(w));
  if (unknown.length > 0)
    throw new Error(
      `unknown section(s) for --only: ${unknown.join(", ")}; known: ${SECTION_NAMES.join(", ")}`,
    );
  return new Set(identityOnly ? [...wanted, "identity"] : wanted);
}

/** Parses the command line. @throws Error naming the bad flag. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions | "help" {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: "boolean" },
      out: { type: "string" },
      rounds: { type: "string" },
      "duration-ms": { type: "string" },
      "warmup-ms": { type: "string" },
      configurations: { type: "string" },
      "no-profile": { type: "boolean" },
      "no-replicas": { type: "boolean" },
      "no-footprint": { type: "boolean" },
      "no-pin": { type: "boolean" },
      "soak-minutes": { type: "string" },
      "no-soak": { type: "boolean" },
      "identity-only": { type: "boolean" },
      only: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  const quick = values.quick === true;
  const soakMinutes = positiveNumber(values["soak-minutes"], "soak-minutes");
  if (soakMinutes !== undefined && values["no-soak"] === true) {
    throw new Error("--soak-minutes and --no-soak contradict each other: give one");
  }
  // The full run soaks for the 10 minutes; --quick only when asked.
  const soakMinutesToRun = values["no-soak"] === true ? undefined : (soakMinutes ?? (quick ? undefined : 10));
  let configurations = [...CONFIGURATION_NAMES];
  if (values.configurations) {
    const wanted = values.configurations.split(",").map((s) => s.trim());
    const unknown = wanted.filter((w) => !(CONFIGURATION_NAMES as readonly string[]).includes(w));
    if (unknown.length > 0) throw new Error(`unknown configuration(s): ${unknown.join(", ")}`);
    configurations = configurations.filter((c) => wanted.includes(c));
  }
  const warmupMs = positive(values["warmup-ms"], "warmup-ms");
  const durationMs = positive(values["duration-ms"], "duration-ms");
  return {
    codeMode: {
      definitionTools: 500,
      sequentialCalls: 50,
      repetitions: quick ? 3 : 5,
      searchTools: 10_000,
      searches: quick ? 300 : 1_000,
      cpuCalls: quick ? 300 : 1_000,
    },
    mode: quick ? "quick" : "full",
    out: values.out,
    configurations,
    // c256 only in the full run: errors there are a target, its throughput says little more than c64's.
    concurrencies: quick ? [1, 16, 64] : [1, 16, 64, 256],
    rounds: positive(values.rounds, "rounds") ?? (quick ? 1 : 3),
    warmupMs: warmupMs ?? (quick ? 300 : 1_500),
    durationMs: durationMs ?? (quick ? 1_200 : 5_000),
    // A Trestle router's CPU a call settles after about 20 s at c16 (410 µs in its first 5 s, 240 from the 20th on,
    // Node 24): its JIT is still optimizing its larger hot path. Every configuration gets the same, so round 1
    // measures the steady state a long-running server lives in, as rounds 2 and 3 do.
    preWarmMs: quick ? 800 : 20_000,
    toolListSizes: quick ? [100, 1_000] : [100, 1_000, 10_000],
    toolListRepetitions: quick ? 5 : 15,
    idleSessions: 1_000,
    codeExecution: quick
      ? { calls: 3, chunksPerCall: 20, intervalMs: 5 }
      : { calls: 5, chunksPerCall: 40, intervalMs: 5 },
    profile: !quick && values["no-profile"] !== true,
    crossReplica: !quick && values["no-replicas"] !== true,
    replicaChanges: 10,
    footprint: values["no-footprint"] !== true,
    pin: values["no-pin"] !== true,
    only: parseOnly(values.only, values["identity-only"] === true),
    // Shorter than the throughput runs by default: five sections of their own must fit in about five minutes.
    paths: {
      warmupMs: warmupMs ?? (quick ? 300 : 1_000),
      durationMs: durationMs ?? (quick ? 1_200 : 4_000),
      starts: quick ? 3 : 8,
    },
    soak:
      soakMinutesToRun === undefined
        ? undefined
        : {
            concurrency: 16,
            warmupMs: 30_000,
            durationMs: Math.round(soakMinutesToRun * 60_000),
            sampleIntervalMs: 5_000,
          },
  };
}
