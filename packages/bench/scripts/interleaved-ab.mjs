// Interleaved A/B of trestle-grpc builds (and, if asked, bound-mcp) in one run, on the harness's own pieces:
// round by round, each checkout's router and echo capability are started, loaded at a concurrency (3 s warm-up,
// 6 s measured), and the server's CPU per call read from /proc; the order reverses every other round so a drift of
// the machine falls on all alike. Servers on CPU 0, this script and the load generator on CPU 1, as `pnpm bench`.
//
//   node packages/bench/scripts/interleaved-ab.mjs ROUNDS CHECKOUT[|FLAGS|bound-mcp|connect] ...
//   C=64 node packages/bench/scripts/interleaved-ab.mjs 6 ../before . ".|bound-mcp"
//
// A checkout is a directory holding a built Trestle (its packages/bench/dist is used). After `|`: node flags for
// its router (space-separated), `node=PATH` to run its router on another node binary (e.g. Node 22's),
// `env=NAME=VALUE` to set a variable of its router's environment (a `TRESTLE_*` setting; several, space-separated,
// with node flags among them), `bound-mcp`
// for the bare MCP SDK server instead, `floor` for the floor router (issue 19's measuring stick), or `connect`
// for trestle-connect. A variant ending in `#stateless` calls as a 2026-07-28 client (STATELESS=1 makes every variant
// do so), so the two eras of one build can be compared in one run; C sets the concurrency (16), WARMUP_MS the warm-up
// before each measured window (3000: the JIT is still compiling then; 8000 leaves less of it in the window),
// PAYLOAD_BYTES characters added to every call's echoed text (0: a short word), WATCH=1 a watcher on each Trestle's
// `/api/v2/tool-calls/notifications` (an operator's console open: every event built at once and sent as SSE).
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { routerOptions } from "./variant-options.mjs";

const [rounds, ...variants] = process.argv.slice(2);
if (!rounds || variants.length === 0) {
  console.error("usage: interleaved-ab.mjs ROUNDS CHECKOUT[|FLAGS|bound-mcp|floor|connect] ...");
  process.exit(2);
}
const concurrency = Number(process.env.C ?? 16);
const warmupMs = Number(process.env.WARMUP_MS ?? 3000);
const payloadBytes = Number(process.env.PAYLOAD_BYTES ?? 0);
const watch = process.env.WATCH === "1";

// This checkout's watcher (an older checkout under test may not have one).
const { watchToolCallNotifications } = await import(
  new URL("../dist/notifications-watcher.js", import.meta.url).href
);
const modules = {};
for (const variant of variants) {
  const dist = pathToFileURL(`${resolve(variant.split("#")[0].split("|")[0])}/packages/bench/dist/`);
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
/** A Trestle variant's options from what follows its `|` (see `routerOptions`); `connect` takes none. */
const trestleOptions = (extra) => (extra === "connect" ? {} : routerOptions(extra));
const cpu = Object.fromEntries(variants.map((v) => [v, []]));
const capabilityCpu = Object.fromEntries(variants.map((v) => [v, []]));
const throughput = Object.fromEntries(variants.map((v) => [v, []]));
for (let round = 0; round < Number(rounds); round++) {
  for (const variant of round % 2 ? [...variants].reverse() : variants) {
    const m = modules[variant];
    const extra = variant.split("#")[0].split("|")[1];
    const running =
      extra === "bound-mcp" || extra === "floor"
        ? await m.configurations.startConfiguration(extra)
        : await m.configurations.startTrestle(
            extra === "connect" ? "connect" : "grpc",
            trestleOptions(extra),
            process.env.STATELESS === "1" || variant.endsWith("#stateless"),
          );
    const watcher =
      watch && running.router ? await watchToolCallNotifications(running.target.url) : undefined;
    try {
      await m.load.runLoad({
        target: running.target,
        concurrency,
        warmupMs: 0,
        durationMs: warmupMs,
        payloadBytes,
      });
      const before = m.proc.readSelfCpuMs(running.serverPid);
      const capabilityPid = running.capability?.pid;
      const capabilityBefore = capabilityPid ? m.proc.readSelfCpuMs(capabilityPid) : 0;
      const eventsBefore = watcher?.events ?? 0;
      let eventsAfter = eventsBefore;
      let after = before;
      let capabilityAfter = capabilityBefore;
      const result = await m.load.runLoad(
        { target: running.target, concurrency, warmupMs: 0, durationMs: 6000, payloadBytes },
        () => {
          after = m.proc.readSelfCpuMs(running.serverPid);
          eventsAfter = watcher?.events ?? 0;
          if (capabilityPid) capabilityAfter = m.proc.readSelfCpuMs(capabilityPid);
        },
      );
      const usPerCall = ((after - before) * 1000) / result.totalCalls;
      const callsPerSecond = (result.calls * 1000) / result.windowMs;
      const capabilityUsPerCall = ((capabilityAfter - capabilityBefore) * 1000) / result.totalCalls;
      cpu[variant].push(usPerCall);
      if (capabilityPid) capabilityCpu[variant].push(capabilityUsPerCall);
      throughput[variant].push(callsPerSecond);
      console.log(
        `round ${round} ${variant}: ${usPerCall.toFixed(0)} µs/call${capabilityPid ? ` (+ capability ${capabilityUsPerCall.toFixed(0)})` : ""}, ${callsPerSecond.toFixed(0)} calls/s, ${result.errors} errors${watcher ? `, ${((eventsAfter - eventsBefore) / result.totalCalls).toFixed(2)} events watched a call` : ""}`,
      );
    } finally {
      watcher?.stop();
      await running.stop();
    }
  }
}
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} (${sorted.map((v) => v.toFixed(0)).join(", ")})`;
};
for (const variant of variants) {
  const capability = capabilityCpu[variant].length
    ? `; capability µs/call ${summary(capabilityCpu[variant])}`
    : "";
  console.log(
    `${variant}: calls/s ${summary(throughput[variant])}; server µs/call ${summary(cpu[variant])}${capability}`,
  );
}
