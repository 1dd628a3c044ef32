// Simultaneous A/B of trestle-grpc builds, for a machine others load too: every variant's router and echo capability
// run at the same time, all on CPU 0 (the load generators on CPU 1), each loaded at C concurrent calls for the same
// window, and each server's CPU per call is read from /proc every INTERVAL_MS. Each interval then compares the
// variants under the same contention, which an interleaved run (one variant after the other, each for seconds)
// cannot do when the machine's load swings by a factor of two within a minute. Calls/s mean nothing here (the
// variants share a core); CPU per call does. Put the base checkout twice to read the method's own noise (A/A).
//
//   node packages/bench/scripts/simultaneous-ab.mjs ROUNDS WINDOW_S CHECKOUT[|FLAGS] ...
//   node packages/bench/scripts/simultaneous-ab.mjs 4 60 ../base ../base-copy ../candidate
//
// The first variant is the base every ratio is taken against. A checkout is a directory holding a built Trestle (its
// packages/bench/dist is used; an A/A needs the base in two directories, as variants are told apart by their text).
// After `|`: node flags for its router, `node=PATH` to run its router on another node binary, and any number of
// `env=NAME=VALUE` for its router's environment, space-separated (see variant-options.mjs). Each round starts every
// variant fresh (in alternating order), warms them 4 s at once, then measures WINDOW_S seconds. C sets the
// concurrency (16), INTERVAL_MS the sampling interval (2000).
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { routerOptions } from "./variant-options.mjs";

const [rounds, windowSeconds, ...variants] = process.argv.slice(2);
if (!rounds || !windowSeconds || variants.length < 2) {
  console.error("usage: simultaneous-ab.mjs ROUNDS WINDOW_S CHECKOUT[|FLAGS] CHECKOUT[|FLAGS] ...");
  process.exit(2);
}
const concurrency = Number(process.env.C ?? 16);
const intervalMs = Number(process.env.INTERVAL_MS ?? 2000);

const modules = {};
for (const variant of variants) {
  const dist = pathToFileURL(`${resolve(variant.split("|")[0])}/packages/bench/dist/`);
  modules[variant] = {
    configurations: await import(new URL("configurations.js", dist).href),
    load: await import(new URL("load-runner.js", dist).href),
    proc: await import(new URL("proc-stats.js", dist).href),
    childProcess: await import(new URL("child-process.js", dist).href),
  };
}
if (spawnSync("taskset", ["-c", "0", "true"]).status === 0) {
  for (const variant of variants) modules[variant].childProcess.pinCpus({ server: "0", load: "1" });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quantile = (values, q) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

/** Per variant, the intervals of every round, aligned by index with the base's. */
const samples = Object.fromEntries(variants.map((v) => [v, []]));
/** The round's running configurations, stopped at the round's end or when the script is interrupted. */
let running = {};
const stopRunning = () => Promise.all(Object.values(running).map((r) => r.stop()));
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => void stopRunning().finally(() => process.exit(130)));
}
for (let round = 0; round < Number(rounds); round++) {
  running = {};
  try {
    for (const variant of round % 2 ? [...variants].reverse() : variants) {
      running[variant] = await modules[variant].configurations.startTrestle(
        "grpc",
        routerOptions(variant.split("|")[1]),
      );
    }
    await Promise.all(
      variants.map((v) =>
        modules[v].load.runLoad({ target: running[v].target, concurrency, warmupMs: 0, durationMs: 4000 }),
      ),
    );
    const intervals = Object.fromEntries(variants.map((v) => [v, []]));
    await Promise.all(
      variants.map((v) => {
        const { load, proc } = modules[v];
        const { target, serverPid, capability } = running[v];
        const read = (calls) => ({
          calls,
          router: proc.readSelfCpuMs(serverPid),
          capability: proc.readSelfCpuMs(capability.pid),
        });
        let last = read(0);
        return load.runLoad(
          {
            target,
            concurrency,
            warmupMs: 0,
            durationMs: Number(windowSeconds) * 1000,
            progressIntervalMs: intervalMs,
          },
          () => undefined,
          (progress) => {
            const now = read(progress.calls);
            const calls = now.calls - last.calls;
            // The first report comes at the window's start, with no calls behind it.
            if (calls > 0) {
              intervals[v].push({
                round,
                router: ((now.router - last.router) * 1000) / calls,
                capability: ((now.capability - last.capability) * 1000) / calls,
              });
            }
            last = now;
          },
        );
      }),
    );
    const count = Math.min(...variants.map((v) => intervals[v].length));
    for (const v of variants) samples[v].push(...intervals[v].slice(0, count));
    console.log(
      `round ${round}: ${variants
        .map(
          (v) =>
            `${v} ${median(intervals[v].map((s) => s.router)).toFixed(0)} µs/call (capability ${median(intervals[v].map((s) => s.capability)).toFixed(0)})`,
        )
        .join("; ")}; ${count} intervals`,
    );
  } finally {
    await stopRunning();
  }
}

const [base] = variants;
for (const v of variants.slice(1)) {
  const ratios = samples[v].map((s, i) => s.router / samples[base][i].router);
  const perRound = [...new Set(samples[v].map((s) => s.round))].map((round) =>
    median(ratios.filter((_, i) => samples[v][i].round === round)),
  );
  const capability = samples[v].map((s, i) => s.capability / samples[base][i].capability);
  console.log(
    `${v} / ${base}: router CPU per call ${median(ratios).toFixed(3)} (intervals p25 ${quantile(ratios, 0.25).toFixed(3)}, p75 ${quantile(ratios, 0.75).toFixed(3)}, n ${ratios.length}); by round ${perRound.map((r) => r.toFixed(3)).join(", ")}; capability ${median(capability).toFixed(3)}`,
  );
}
