import { parseArgs } from "node:util";
import { CONFIGURATION_NAMES, type ConfigurationName } from "./configurations.js";

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
  /** Run only the identity comparison (static token vs JWT + CEL rules) and print it; writes nothing. */
  identityOnly: boolean;
  /** The sections to run (`--only a,b`); undefined: every section. A section runs when {@link runsSection} says so. */
  only: ReadonlySet<string> | undefined;
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

/** The sections `--only` may name. */
export const SECTION_NAMES = [
  "throughput",
  "tools-list",
  "code-execution",
  "load-variants",
  "identity-cost",
  "idle-sessions",
  "idle-footprint",
  "profile",
  "cross-replica",
  "memory-under-load",
  "code-mode",
] as const;

/** Whether a run with these options runs the section `name`. */
export function runsSection(
  options: Pick<BenchOptions, "only">,
  name: (typeof SECTION_NAMES)[number],
): boolean {
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
                  [--soak-minutes N | --no-soak] [--identity-only] [--only a,b,...]

  --quick            one short round, 100 and 1,000 tools, no profile, no cross-replica run (under 2 minutes);
                     writes packages/bench/results/ unless --out says otherwise
  (default)          3 rounds of 5 s per configuration and concurrency, 100 / 1,000 / 10,000 tools, router
                     profile, cross-replica change time (9–11 minutes); writes docs/
  --configurations   a subset of: ${CONFIGURATION_NAMES.join(", ")}
  --no-footprint     skip the idle footprint of \`trestle serve --builtins\` (fresh and reopened data directory)
  --soak-minutes N   the soak: trestle-grpc at concurrency 16 for 30 s of warm-up, then N minutes (a decimal
                     is allowed) while the router's RSS is sampled every 5 s; memory growth per call is fitted.
                     Default 10 in a full run; in --quick it runs only when this flag is given
  --no-soak          skip the soak
  --identity-only    only the cost of identity: calls/s at c16 with a static token vs an OAuth JWT and five CEL
                     rules, in interleaved rounds (--rounds, --warmup-ms, --duration-ms apply); prints, writes nothing
  --only             run only these sections (of: ${SECTION_NAMES.join(", ")}); the report goes to
                     packages/bench/results/ unless --out says otherwise, never over docs/
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

/** `--only a,b`: the named sections. @throws Error listing the known sections when a name is not one. */
function parseOnly(text: string | undefined): ReadonlySet<string> | undefined {
  if (text === undefined) return undefined;
  const wanted = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (wanted.length === 0) throw new Error(`--only needs a section name (of: ${SECTION_NAMES.join(", ")})`);
  const unknown = wanted.filter((w) => !(SECTION_NAMES as readonly string[]).includes(w));
  if (unknown.length > 0)
    throw new Error(
      `unknown section(s) for --only: ${unknown.join(", ")} (known: ${SECTION_NAMES.join(", ")})`,
    );
  return new Set(wanted);
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
  return {
    only: parseOnly(values.only),
    codeMode: quick
      ? {
          definitionTools: 500,
          sequentialCalls: 50,
          repetitions: 3,
          searchTools: 10_000,
          searches: 300,
          cpuCalls: 300,
        }
      : {
          definitionTools: 500,
          sequentialCalls: 50,
          repetitions: 5,
          searchTools: 10_000,
          searches: 1_000,
          cpuCalls: 1_000,
        },
    mode: quick ? "quick" : "full",
    out: values.out,
    configurations,
    // c256 only in the full run: errors there are a target, its throughput says little more than c64's.
    concurrencies: quick ? [1, 16, 64] : [1, 16, 64, 256],
    rounds: positive(values.rounds, "rounds") ?? (quick ? 1 : 3),
    warmupMs: positive(values["warmup-ms"], "warmup-ms") ?? (quick ? 300 : 1_500),
    durationMs: positive(values["duration-ms"], "duration-ms") ?? (quick ? 1_200 : 5_000),
    preWarmMs: quick ? 800 : 3_000,
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
    identityOnly: values["identity-only"] === true,
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
