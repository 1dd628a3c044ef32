// Profiles one trestle-grpc router at a concurrency: `node profile-variant.mjs OUT_DIR [env=NAME=VALUE ...]`.
// The router runs with --cpu-prof into OUT_DIR; 3 s of warm-up then 8 s measured, as the harness's profile does.
// Prints the measured window's bounds (for summarise-profile's --from-us/--to-us) and the calls.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { pinCpus } from "../dist/child-process.js";
import { startTrestle } from "../dist/configurations.js";
import { runLoad } from "../dist/load-runner.js";

const [outDir, ...rest] = process.argv.slice(2);
const dir = resolve(outDir);
mkdirSync(dir, { recursive: true });
const env = {};
for (const part of rest) {
  const [name, ...value] = part.slice("env=".length).split("=");
  env[name] = value.join("=");
}
pinCpus({ server: "0", load: "1" });
const concurrency = Number(process.env.C ?? 16);
const running = await startTrestle("grpc", {
  nodeArgs: ["--cpu-prof", "--cpu-prof-interval", "250", "--cpu-prof-dir", dir],
  env,
});
await runLoad({ target: running.target, concurrency, warmupMs: 0, durationMs: 3000 });
const result = await runLoad({ target: running.target, concurrency, warmupMs: 0, durationMs: 8000 });
console.log(`calls ${result.totalCalls} calls/s ${((result.calls * 1000) / result.windowMs).toFixed(0)}`);
await running.stop();
