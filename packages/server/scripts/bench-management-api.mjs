#!/usr/bin/env node
// Management API overhead per request: interleaved rounds of sequential GETs of /api/v1/tools (keep-alive, one
// connection) against routers already running, each seeded with the same tools first.
//
//   node scripts/bench-management-api.mjs <label>=<router url>[,<router pid>] … [--requests 2000] [--rounds 9] [--tools 20]
//
// Prints, per router, the median over rounds of the wall time per request (µs) and, given the router's pid, of
// the router's main-thread CPU time per request (from /proc: far less sensitive to a busy machine).
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const requests = option("requests", 2000);
const rounds = option("rounds", 9);
const tools = option("tools", 20);
const targets = args
  .filter((a, i) => a.includes("=") && !args[i - 1]?.startsWith("--"))
  .map((a) => {
    const [label, spec] = a.split(/=(.*)/s);
    const [url, pid] = spec.split(",");
    return { label, url: new URL(url), pid, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
  });

function call(target, method, path, body) {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: target.url.hostname,
        port: target.url.port,
        method,
        path,
        agent: target.agent,
        headers:
          text === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(text) },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks)}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

for (const target of targets) {
  for (let i = 0; i < tools; i++) {
    await call(target, "POST", "/api/v1/tools", {
      name: `bench_tool_${i}`,
      type: "bench",
      uri: `bench://tool/${i}`,
      description: "A tool of the management API benchmark",
      inputSchema: { type: "object", properties: { city: { type: "string", description: "A city" } } },
    }).catch((error) => {
      if (!String(error.message).includes(" 409 ")) throw error;
    });
  }
  for (let i = 0; i < 200; i++) await call(target, "GET", "/api/v1/tools"); // warm-up
}

/**
 * The CPU time of the router's main thread (where HTTP and the handlers run) in µs, from /proc/<pid>/schedstat
 * (nanoseconds, unlike the 10 ms ticks of /proc/<pid>/stat); undefined without a pid.
 */
function cpuMicros(pid) {
  if (!pid) return undefined;
  return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1000;
}

const perRequest = new Map(targets.map((t) => [t.label, []]));
const cpuPerRequest = new Map(targets.map((t) => [t.label, []]));
for (let round = 0; round < rounds; round++) {
  // Alternate the order each round, so neither router always runs first after a pause.
  const order = round % 2 === 0 ? targets : [...targets].reverse();
  for (const target of order) {
    const cpuStart = cpuMicros(target.pid);
    const start = process.hrtime.bigint();
    for (let i = 0; i < requests; i++) await call(target, "GET", "/api/v1/tools");
    perRequest.get(target.label).push(Number(process.hrtime.bigint() - start) / 1000 / requests);
    if (cpuStart !== undefined)
      cpuPerRequest.get(target.label).push((cpuMicros(target.pid) - cpuStart) / requests);
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const target of targets) {
  const samples = perRequest.get(target.label);
  const m = median(samples);
  const cpu = cpuPerRequest.get(target.label);
  console.log(
    `${target.label}: wall ${m.toFixed(1)} µs/request (${Math.round(1e6 / m)} req/s), rounds ${samples.map((s) => s.toFixed(0)).join(" ")}` +
      (cpu.length > 0
        ? `; router CPU ${median(cpu).toFixed(1)} µs/request (best round ${Math.min(...cpu).toFixed(1)}), rounds ${cpu.map((c) => c.toFixed(0)).join(" ")}`
        : ""),
  );
  target.agent.destroy();
}
