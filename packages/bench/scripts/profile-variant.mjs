// Profiles one trestle-grpc router at a concurrency:
//
//   node profile-variant.mjs OUT_DIR [env=NAME=VALUE ...] [node=PATH] [NODE_FLAG ...]
//
// The router runs with --cpu-prof into OUT_DIR (plus what follows OUT_DIR, read as variant-options.mjs reads what
// follows a variant's `|`); WARMUP_MS of load (3000, as the harness's profile; the JIT settles in 20-30 s) then
// 8 s measured at C (16). Prints the measured window's bounds on the monotonic clock, in µs as the profile's
// timestamps are (summarise-profile's --from-us/--to-us), and the calls in it (its --calls).
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { pinCpus } from "../dist/child-process.js";
import { startTrestle } from "../dist/configurations.js";
import { runLoad } from "../dist/load-runner.js";
import { routerOptionsOf } from "./variant-options.mjs";

const [outDir, ...rest] = process.argv.slice(2);
if (!outDir) {
  console.error("usage: profile-variant.mjs OUT_DIR [env=NAME=VALUE ...] [node=PATH] [NODE_FLAG ...]");
  process.exit(2);
}
const dir = resolve(outDir);
mkdirSync(dir, { recursive: true });
const options = routerOptionsOf(rest);
pinCpus({ server: "0", load: "1" });
const concurrency = Number(process.env.C ?? 16);
const running = await startTrestle("grpc", {
  ...options,
  nodeArgs: [...(options.nodeArgs ?? []), "--cpu-prof", "--cpu-prof-interval", "250", "--cpu-prof-dir", dir],
});
const microseconds = () => process.hrtime.bigint() / 1000n;
await runLoad({
  target: running.target,
  concurrency,
  warmupMs: 0,
  durationMs: Number(process.env.WARMUP_MS ?? 3000),
});
const from = microseconds();
const result = await runLoad({ target: running.target, concurrency, warmupMs: 0, durationMs: 8000 });
const to = microseconds();
console.log(
  `--from-us ${from} --to-us ${to} --calls ${result.totalCalls} (calls/s ${((result.calls * 1000) / result.windowMs).toFixed(0)})`,
);
await running.stop();
